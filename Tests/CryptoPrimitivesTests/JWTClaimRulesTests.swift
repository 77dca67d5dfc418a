import CryptoPrimitives
import Foundation
import Testing

/// The time and identity rules every verified token's claims pass.
@Suite("JWT claim rules")
struct JWTClaimRulesTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    func claims(_ values: [String: JOSEValue]) throws -> JWTClaims {
        var raw = values
        if raw["exp"] == nil { raw["exp"] = .int(Int(Self.now.timeIntervalSince1970) + 600) }
        return try JWTClaims(raw: raw)
    }

    func rules(leeway: Duration = .seconds(30), maxAge: Duration? = nil) -> JWTClaimRules {
        JWTClaimRules(leeway: leeway, maxAge: maxAge, now: { JWTClaimRulesTests.now })
    }

    func at(_ offset: Int) -> JOSEValue { .int(Int(Self.now.timeIntervalSince1970) + offset) }

    @Test func issuedAtInTheFutureIsRefusedBeyondTheLeeway() throws {
        #expect(throws: JWTError.issuedInFuture) { try rules().check(try claims(["iat": at(31)])) }
        #expect(throws: Never.self) { try rules().check(try claims(["iat": at(29)])) }
        #expect(throws: Never.self) { try rules().check(try claims(["iat": at(-3600)])) }
        // No iat and no maximum age: nothing to check.
        #expect(throws: Never.self) { try rules().check(try claims([:])) }
    }

    @Test func maximumAgeNeedsIssuedAtAndRefusesOlderTokens() throws {
        let hour = rules(maxAge: .seconds(3600))
        #expect(throws: Never.self) { try hour.check(try claims(["iat": at(-3600)])) }
        #expect(throws: Never.self) { try hour.check(try claims(["iat": at(-3629)])) }
        #expect(throws: JWTError.tooOld) { try hour.check(try claims(["iat": at(-3631)])) }
        #expect(throws: JWTError.missingClaim("iat")) { try hour.check(try claims([:])) }
    }

    @Test func expiredAndMissingExpirationAreRefused() throws {
        #expect(throws: JWTError.expired) { try rules().check(try claims(["exp": at(-31)])) }
        #expect(throws: Never.self) { try rules().check(try claims(["exp": at(-29)])) }
        #expect(throws: JWTError.missingClaim("exp")) { try rules().check(try JWTClaims(raw: ["sub": "u"])) }
        #expect(throws: JWTError.notYetValid) { try rules().check(try claims(["nbf": at(31)])) }
    }

    @Test func leewayIsBoundedToFiveMinutes() throws {
        let generous = rules(leeway: .seconds(86_400))
        #expect(generous.effectiveLeeway == JWTClaimRules.maximumLeeway)
        #expect(throws: JWTError.expired) { try generous.check(try claims(["exp": at(-301)])) }
        #expect(throws: JWTError.issuedInFuture) { try generous.check(try claims(["iat": at(301)])) }
        #expect(rules(leeway: .seconds(-5)).effectiveLeeway == .zero)
    }

    @Test func issuerAndAudienceListsAcceptAnyMember() throws {
        var rules = rules()
        rules.issuers = ["https://a.example", "https://b.example"]
        rules.audiences = ["app-a", "app-b"]
        #expect(throws: Never.self) { try rules.check(try claims(["iss": "https://b.example", "aud": ["other", "app-a"]])) }
        #expect(throws: JWTError.invalidIssuer) { try rules.check(try claims(["iss": "https://c.example", "aud": "app-a"])) }
        #expect(throws: JWTError.invalidIssuer) { try rules.check(try claims(["aud": "app-a"])) }
        #expect(throws: JWTError.invalidAudience) { try rules.check(try claims(["iss": "https://a.example", "aud": "app-c"])) }
        #expect(throws: JWTError.invalidAudience) { try rules.check(try claims(["iss": "https://a.example"])) }
    }

    @Test func verifierAppliesTheRules() throws {
        let secret = [UInt8](repeating: 9, count: 32)
        let token = try JWTSigner(hs256Secret: secret).sign(["sub": "u", "iat": at(-7200), "exp": at(600)])
        #expect(try JWTVerifier(key: .hs256(secret: secret), now: { JWTClaimRulesTests.now }).verify(token).subject == "u")
        #expect(throws: JWTError.tooOld) {
            try JWTVerifier(key: .hs256(secret: secret), maxAge: .seconds(3600), now: { JWTClaimRulesTests.now }).verify(token)
        }
    }
}
