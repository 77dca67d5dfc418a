import Foundation
import Testing

@testable import CheckoutService

/// The key's text format, hash and comparison, with no store at all.
@Suite struct APIKeyTests {
    @Test func aGeneratedKeyParsesBackAndShowsItsMode() throws {
        let live = try APIKey.generate(mode: .live)
        #expect(live.text.hasPrefix("sfk_live_\(live.keyID)_"))
        #expect(live.keyID.count == 12 && live.text.count == "sfk_live_".count + 12 + 1 + 64)
        #expect(APIKey(parsing: live.text) == live)
        let test = try APIKey.generate(mode: .test)
        #expect(test.text.hasPrefix("sfk_test_") && test.keyID != live.keyID)
    }

    @Test func anythingNotShapedLikeAKeyIsRefusedBeforeAnyLookup() throws {
        let key = try APIKey.generate(mode: .test)
        let secret = key.text.split(separator: "_").last!
        for text in [
            "", "sfk_", "eyJhbGciOiJIUzI1NiJ9.e30.x", "sfk_prod_\(key.keyID)_\(secret)", "sfk_test_\(key.keyID)\(secret)",
            "sfk_test_\(key.keyID)_\(secret.dropLast())", "sfk_test_\(key.keyID.uppercased().replacingOccurrences(of: "A", with: "G"))z_\(secret)",
            "sfk_test_\(key.keyID)_\(secret)_x", key.text.replacingOccurrences(of: "sfk_", with: "sfK_"),
        ] {
            #expect(APIKey(parsing: text) == nil, "\(text)")
        }
    }

    @Test func onlyTheSameKeyMatchesItsStoredHash() throws {
        let key = try APIKey.generate(mode: .test)
        #expect(key.hash.count == 32)
        #expect(key.matches(storedHash: key.hash))
        // Same key id, another secret: the id finds the row, the secret must still fail.
        let secret = String(repeating: "0", count: 64)
        let forged = try #require(APIKey(parsing: "sfk_test_\(key.keyID)_\(secret)"))
        #expect(forged.keyID == key.keyID && !forged.matches(storedHash: key.hash))
        #expect(!key.matches(storedHash: []))
    }

    @Test func scopesAreStoredSortedAndUnknownOnesGrantNothing() {
        #expect(PostgresAPIKeyStore.render([.entitlementsRead]) == "entitlements:read")
        #expect(PostgresAPIKeyStore.parse("entitlements:read webhooks:write") == [.entitlementsRead])
        #expect(PostgresAPIKeyStore.parse("").isEmpty)
    }
}
