import ServiceSettings
import CheckoutService
import ProviderConfiguration
import Foundation
import ServiceRuntime
import Testing

/// `STOREFRONT_MODE` against the Paystack key. No server needed.
@Suite struct DeploymentModeTests {
    static let testKey = "sk_test_0123456789abcdef0123"
    static let liveKey = "sk_live_0123456789abcdef0123"

    /// The credential modes of a configuration with Paystack's `key` (none without one).
    static func credentials(paystackSecretKey key: String?) -> [CredentialMode] {
        guard let key, !key.isEmpty else { return [] }
        return ProvidersConfiguration([PaystackConfiguration(secretKey: Secret(key))]).credentialModes
    }

    static func read(_ values: [String: String], paystackSecretKey: String?) -> (DeploymentMode, [ConfigurationProblem]) {
        var reader = ConfigReader(Environment(values))
        let mode = DeploymentMode.fromEnvironment(&reader, credentials: credentials(paystackSecretKey: paystackSecretKey))
        return (mode, reader.problems)
    }

    static func read(_ values: [String: String]) -> (DeploymentMode, [ConfigurationProblem]) {
        var reader = ConfigReader(Environment(values))
        let mode = DeploymentMode.fromEnvironment(&reader)
        return (mode, reader.problems)
    }

    @Test func explicitModeThatAgreesWithTheKey() {
        #expect(Self.read(["STOREFRONT_MODE": "test"], paystackSecretKey: Self.testKey) == (.test, []))
        #expect(Self.read(["STOREFRONT_MODE": "live"], paystackSecretKey: Self.liveKey) == (.live, []))
        #expect(Self.read(["STOREFRONT_MODE": "LIVE"], paystackSecretKey: Self.liveKey) == (.live, []))
    }

    @Test func derivedFromThePaystackKey() {
        #expect(Self.read([:], paystackSecretKey: Self.testKey) == (.test, []))
        #expect(Self.read([:], paystackSecretKey: Self.liveKey) == (.live, []))
        #expect(Self.read([:], paystackSecretKey: " \(Self.liveKey)\n") == (.live, []))
    }

    @Test func explicitModeWithoutPaystack() {
        // Lemon Squeezy alone: nothing to check offline, the operator's word counts.
        #expect(Self.read(["STOREFRONT_MODE": "live"], paystackSecretKey: nil) == (.live, []))
        #expect(Self.read(["STOREFRONT_MODE": "test"], paystackSecretKey: "") == (.test, []))
    }

    @Test func mismatchNamesBothVariablesAndHidesTheKey() {
        for (mode, key) in [("live", Self.testKey), ("test", Self.liveKey)] {
            let (_, problems) = Self.read(["STOREFRONT_MODE": mode], paystackSecretKey: key)
            #expect(problems.map(\.variable) == ["STOREFRONT_MODE"])
            let message = problems.first?.message ?? ""
            #expect(message.contains("STOREFRONT_MODE") && message.contains("PAYSTACK_SECRET_KEY"), "\(message)")
            #expect(!message.contains("0123456789abcdef"), "the key leaked: \(message)")
        }
    }

    @Test func unsetWithoutPaystackIsAnError() {
        let (_, problems) = Self.read([:], paystackSecretKey: nil)
        #expect(problems.map(\.variable) == ["STOREFRONT_MODE"])
        #expect(problems.first?.message.contains("set STOREFRONT_MODE=test or live") == true)
    }

    @Test func invalidValuesAndKeys() {
        let (_, invalid) = Self.read(["STOREFRONT_MODE": "production"], paystackSecretKey: nil)
        #expect(invalid.map(\.variable) == ["STOREFRONT_MODE"], "one problem, not a second 'set it' one")
        let (_, invalidWithKey) = Self.read(["STOREFRONT_MODE": "prod"], paystackSecretKey: Self.liveKey)
        #expect(invalidWithKey.map(\.variable) == ["STOREFRONT_MODE"])
        let (_, oddKey) = Self.read([:], paystackSecretKey: "sk_other_0123456789abcdef")
        #expect(oddKey.map(\.variable) == ["PAYSTACK_SECRET_KEY"])
        #expect(!(oddKey.first?.message.contains("0123456789abcdef") ?? true))
    }

    @Test func prefixes() {
        #expect(Self.credentials(paystackSecretKey: Self.testKey).map(\.isLive) == [false])
        #expect(Self.credentials(paystackSecretKey: Self.liveKey).map(\.isLive) == [true])
        #expect(Self.credentials(paystackSecretKey: "pk_live_abc").map(\.isLive) == [nil])
        #expect(DeploymentMode.live.isLive && !DeploymentMode.test.isLive)
    }

    // MARK: - Reading the key itself (PAYSTACK_SECRET_KEY or _FILE)

    @Test func readsTheKeyFromTheEnvironment() {
        #expect(Self.read(["PAYSTACK_SECRET_KEY": Self.liveKey]) == (.live, []))
        #expect(Self.read(["PAYSTACK_SECRET_KEY": Self.testKey, "STOREFRONT_MODE": "test"]) == (.test, []))
        #expect(Self.read(["PAYSTACK_SECRET_KEY": Self.testKey, "STOREFRONT_MODE": "live"]).1.map(\.variable) == ["STOREFRONT_MODE"])
        #expect(Self.read(["STOREFRONT_MODE": "live"]) == (.live, []))
        #expect(Self.read([:]).1.map(\.variable) == ["STOREFRONT_MODE"])
    }

    @Test func readsTheKeyFromAFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("paystack-\(UUID().uuidString)").path
        try (Self.liveKey + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(Self.read(["PAYSTACK_SECRET_KEY_FILE": path]) == (.live, []))
        let (_, mismatch) = Self.read(["PAYSTACK_SECRET_KEY_FILE": path, "STOREFRONT_MODE": "test"])
        #expect(mismatch.map(\.variable) == ["STOREFRONT_MODE"])
        #expect(!mismatch.description.contains("0123456789abcdef"))
    }

    @Test func unreadableKeyIsReportedOnce() {
        // As ProvidersConfiguration.fromEnvironment would have reported it already.
        var reader = ConfigReader(Environment(["PAYSTACK_SECRET_KEY_FILE": "/nonexistent/paystack", "STOREFRONT_MODE": "live"]))
        _ = reader.secret(Setting("PAYSTACK_SECRET_KEY", secret: true, "the key under test"))
        _ = DeploymentMode.fromEnvironment(&reader)
        #expect(reader.problems.map(\.variable) == ["PAYSTACK_SECRET_KEY_FILE"])
        // On its own, it reports the key's problem itself.
        let (_, alone) = Self.read(["PAYSTACK_SECRET_KEY_FILE": "/nonexistent/paystack", "STOREFRONT_MODE": "live"])
        #expect(alone.map(\.variable) == ["PAYSTACK_SECRET_KEY_FILE"])
    }
}
