import ServiceSettings
@testable import CheckoutService
import CryptoPrimitives
import Foundation
import HTTPServer
import ServiceRuntime
import TokenVerification
import Testing

/// Who the caller is and whether its email is verified; the configuration
/// rules of `AUTH_*`. No server, database or broker needed.
@Suite struct AuthIdentityTests {
    static let secret = Array("auth-identity-tests-secret-0123456789abcdef".utf8)

    static func token(_ claims: [String: JOSEValue]) throws -> String {
        var claims = claims
        claims["exp"] = .int(Int(Date().timeIntervalSince1970) + 600)
        return try JWTSigner(hs256Secret: secret).sign(claims)
    }

    static func request(token: String?) -> HTTPRequest {
        var headers = HTTPHeaders()
        if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
        return HTTPRequest(method: .get, path: "/api/subscription/status", headers: headers)
    }

    static func user(_ claims: [String: JOSEValue], emailsAreVerified: Bool = false) async throws -> AppUser {
        let authenticator = Authenticator(configuration: .jwt(JWTVerifier(key: try .hs256(secret: secret)), emailsAreVerified: emailsAreVerified))
        return try await authenticator.authenticate(request(token: token(claims)), fallbackEmail: nil)
    }

    // MARK: - AppUser

    @Test func verifiedEmailNeedsAnEmailAndVerification() {
        #expect(AppUser(id: "u", email: " Ada@Example.COM\n", emailVerified: true).verifiedEmail == "ada@example.com")
        #expect(AppUser(id: "u", email: "ada@example.com", emailVerified: false).verifiedEmail == nil)
        #expect(AppUser(id: "u", email: "ada@example.com").verifiedEmail == nil)
        #expect(AppUser(id: "u", email: nil, emailVerified: true).verifiedEmail == nil)
        #expect(AppUser(id: "u", email: "  ", emailVerified: true).verifiedEmail == nil)
    }

    @Test func emailMatchesKeepsItsMeaning() {
        let ada = AppUser(id: "u", email: "Ada@Example.com", emailVerified: false)
        #expect(ada.emailMatches(" ada@example.COM "))
        #expect(!ada.emailMatches("bob@example.com"))
        // No email claim: nothing to contradict, but nothing to find rows by either.
        let anonymous = AppUser(id: "u", email: nil, emailVerified: true)
        #expect(anonymous.emailMatches("anyone@example.com"))
        #expect(anonymous.verifiedEmail == nil)
    }

    // MARK: - Authenticator

    @Test func emailIsVerifiedOnlyWhenTheClaimSaysSo() async throws {
        let verified = try await Self.user(["sub": "alice", "email": "Alice@Example.com", "email_verified": .bool(true)])
        #expect(verified.id == "alice" && verified.email == "Alice@Example.com")
        #expect(verified.emailVerified && verified.verifiedEmail == "alice@example.com")

        let asString = try await Self.user(["sub": "alice", "email": "alice@example.com", "email_verified": "true"])
        #expect(asString.verifiedEmail == "alice@example.com")

        for claim: JOSEValue? in [nil, .bool(false), "false", .int(1), .null] {
            var claims: [String: JOSEValue] = ["sub": "alice", "email": "alice@example.com"]
            claims["email_verified"] = claim
            let user = try await Self.user(claims)
            #expect(!user.emailVerified && user.verifiedEmail == nil, "email_verified \(String(describing: claim))")
            #expect(user.email == "alice@example.com")
        }
    }

    @Test func emailsAreVerifiedSettingTrustsEveryEmail() async throws {
        let user = try await Self.user(["sub": "bob", "email": "Bob@example.com"], emailsAreVerified: true)
        #expect(user.emailVerified && user.verifiedEmail == "bob@example.com")
        let explicitFalse = try await Self.user(["sub": "bob", "email": "bob@example.com", "email_verified": .bool(false)], emailsAreVerified: true)
        #expect(explicitFalse.verifiedEmail == "bob@example.com")
        // Without an email there is nothing to verify.
        let noEmail = try await Self.user(["sub": "bob", "email_verified": .bool(true)], emailsAreVerified: true)
        #expect(!noEmail.emailVerified && noEmail.verifiedEmail == nil && noEmail.email == nil)
    }

    @Test func disabledAuthNeverVerifiesTheTypedEmail() async throws {
        let user = try await Authenticator(configuration: .disabled).authenticate(Self.request(token: nil), fallbackEmail: " Dev@Example.com ")
        #expect(user.id == "dev@example.com" && user.email == "dev@example.com")
        #expect(!user.emailVerified && user.verifiedEmail == nil)
    }

    // MARK: - AUTH_* configuration

    /// The same secret as text, so tokens from ``token(_:)`` verify under configurations read from it.
    static let hsSecret = String(decoding: secret, as: UTF8.self)

    static func read(_ values: [String: String], mode: DeploymentMode = .test) -> (AuthConfiguration, [ConfigurationProblem]) {
        var reader = ConfigReader(Environment(values))
        let configuration = AuthConfiguration.fromEnvironment(&reader, mode: mode)
        return (configuration, reader.problems)
    }

    @Test func issuerOrAudienceIsRequired() {
        let (_, problems) = Self.read(["AUTH_JWT_SECRET": Self.hsSecret])
        #expect(problems.map(\.variable) == ["AUTH_JWT_ISSUER"])
        let message = problems.first?.message ?? ""
        #expect(message.contains("AUTH_JWT_AUDIENCE") && message.contains("AUTH_JWT_ALLOW_ANY_ISSUER_AND_AUDIENCE=true"))
        #expect(!message.contains(Self.hsSecret))
        // The RS256 path has the same rule.
        let (_, rsa) = Self.read(["AUTH_JWT_PUBLIC_KEY_FILE": "/nonexistent.pem"])
        #expect(rsa.map(\.variable) == ["AUTH_JWT_ISSUER", "AUTH_JWT_PUBLIC_KEY_FILE"])
        // With the opt-out set to false it still fails.
        let (_, no) = Self.read(["AUTH_JWT_SECRET": Self.hsSecret, "AUTH_JWT_ALLOW_ANY_ISSUER_AND_AUDIENCE": "false"])
        #expect(no.map(\.variable) == ["AUTH_JWT_ISSUER"])
    }

    @Test func issuerAndAudienceAreCheckedWhenConfigured() async throws {
        for (values, issuer, audience) in [
            (["AUTH_JWT_ISSUER": "storefront-dev"], "storefront-dev", nil),
            (["AUTH_JWT_AUDIENCE": "storefront-app"], nil, "storefront-app"),
            (["AUTH_JWT_ISSUER": "storefront-dev", "AUTH_JWT_AUDIENCE": "storefront-app"], "storefront-dev", "storefront-app"),
        ] as [([String: String], String?, String?)] {
            let (configuration, problems) = Self.read(values.merging(["AUTH_JWT_SECRET": Self.hsSecret]) { a, _ in a })
            #expect(problems.isEmpty, "\(problems)")
            guard case .tokens(let settings, let emailsAreVerified, let userIDs) = configuration else {
                Issue.record("expected tokens for \(values)")
                continue
            }
            #expect(settings.rules.issuers == (issuer.map { [$0] } ?? []) && settings.rules.audiences == (audience.map { [$0] } ?? []))
            #expect(!emailsAreVerified && settings.staticKeys.map(\.algorithm) == [.hs256] && settings.keySetURLs.isEmpty)
            #expect(userIDs == .plain, "one issuer or none: ids stay the plain sub")
            #expect(configuration.startupWarnings.isEmpty)

            let authenticator = Authenticator(configuration: configuration)
            let good = try Self.token(["sub": "u", "iss": "storefront-dev", "aud": "storefront-app"])
            await #expect(throws: Never.self) { try await authenticator.authenticate(Self.request(token: good), fallbackEmail: nil) }
            let otherIssuer = try Self.token(["sub": "u", "iss": "someone-else", "aud": "storefront-app"])
            let otherAudience = try Self.token(["sub": "u", "iss": "storefront-dev", "aud": "another-app"])
            let neither = try Self.token(["sub": "u"])
            if issuer != nil {
                await #expect(throws: HTTPError.self) { try await authenticator.authenticate(Self.request(token: otherIssuer), fallbackEmail: nil) }
            }
            if audience != nil {
                await #expect(throws: HTTPError.self) { try await authenticator.authenticate(Self.request(token: otherAudience), fallbackEmail: nil) }
            }
            await #expect(throws: HTTPError.self) { try await authenticator.authenticate(Self.request(token: neither), fallbackEmail: nil) }
        }
    }

    @Test func explicitOptOutAcceptsAnyIssuerAndWarns() async throws {
        let (configuration, problems) = Self.read(["AUTH_JWT_SECRET": Self.hsSecret, "AUTH_JWT_ALLOW_ANY_ISSUER_AND_AUDIENCE": "true"])
        #expect(problems.isEmpty, "\(problems)")
        #expect(!configuration.isDisabled)
        #expect(configuration.startupWarnings.count == 1)
        #expect(configuration.startupWarnings.first?.contains("AUTH_JWT_ALLOW_ANY_ISSUER_AND_AUDIENCE=true") == true)
        let anyIssuer = try Self.token(["sub": "u", "iss": "whoever", "aud": "whatever"])
        #expect(try await Authenticator(configuration: configuration).authenticate(Self.request(token: anyIssuer), fallbackEmail: nil).id == "u")
    }

    @Test func optOutMustNotBeCombinedWithIssuerOrAudience() {
        let (_, withIssuer) = Self.read(["AUTH_JWT_SECRET": Self.hsSecret, "AUTH_JWT_ISSUER": "i", "AUTH_JWT_ALLOW_ANY_ISSUER_AND_AUDIENCE": "true"])
        #expect(withIssuer.map(\.variable) == ["AUTH_JWT_ALLOW_ANY_ISSUER_AND_AUDIENCE"])
        #expect(withIssuer.first?.message.contains("AUTH_JWT_ISSUER") == true)
        let (_, withBoth) = Self.read([
            "AUTH_JWT_SECRET": Self.hsSecret, "AUTH_JWT_ISSUER": "i", "AUTH_JWT_AUDIENCE": "a",
            "AUTH_JWT_ALLOW_ANY_ISSUER_AND_AUDIENCE": "yes",
        ])
        #expect(withBoth.first?.message.contains("AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE") == true)
        let (_, invalid) = Self.read(["AUTH_JWT_SECRET": Self.hsSecret, "AUTH_JWT_ALLOW_ANY_ISSUER_AND_AUDIENCE": "sure"])
        #expect(invalid.map(\.variable) == ["AUTH_JWT_ALLOW_ANY_ISSUER_AND_AUDIENCE", "AUTH_JWT_ISSUER"])
    }

    @Test func disabledNeedsNoIssuerAndWarns() {
        let (configuration, problems) = Self.read(["AUTH_DISABLED": "true"])
        #expect(problems.isEmpty && configuration.isDisabled)
        #expect(configuration.startupWarnings.count == 1 && configuration.startupWarnings[0].hasPrefix("AUTH_DISABLED=true"))
        #expect(!configuration.emailsAreVerified)
    }

    /// A deployment that takes real money never runs without token checks:
    /// the problem makes the launcher exit with EX_CONFIG (78).
    @Test func disabledIsRefusedInLiveMode() throws {
        let (_, problems) = Self.read(["AUTH_DISABLED": "true"], mode: .live)
        #expect(problems.map(\.variable) == ["AUTH_DISABLED"])
        let message = try #require(problems.first?.message)
        #expect(message.contains("refused in live mode") && message.contains("AUTH_JWT_SECRET"), "\(message)")
        // The same read through the launcher's reader: finish() throws, which exits 78.
        var reader = ConfigReader(Environment(["AUTH_DISABLED": "true", "STOREFRONT_MODE": "live"]))
        let mode = DeploymentMode.fromEnvironment(&reader)
        _ = AuthConfiguration.fromEnvironment(&reader, mode: mode)
        #expect(throws: ConfigurationError.self) { try reader.finish() }
        #expect(ServiceConfigurationFailure.exitCode == 78)
        // A live Paystack key makes the mode live as well.
        var derived = ConfigReader(Environment(["AUTH_DISABLED": "true", "PAYSTACK_SECRET_KEY": "sk_live_0123456789abcdef"]))
        _ = AuthConfiguration.fromEnvironment(&derived, mode: DeploymentMode.fromEnvironment(&derived))
        #expect(derived.problems.map(\.variable) == ["AUTH_DISABLED"])
        // Off, or test mode: no problem.
        #expect(Self.read(["AUTH_DISABLED": "false", "AUTH_JWT_SECRET": Self.hsSecret, "AUTH_JWT_ISSUER": "i"], mode: .live).1.isEmpty)
        #expect(Self.read(["AUTH_DISABLED": "true"], mode: .test).1.isEmpty)
    }

    @Test func emailsAreVerifiedIsRead() {
        let (on, onProblems) = Self.read(["AUTH_JWT_SECRET": Self.hsSecret, "AUTH_JWT_ISSUER": "i", "AUTH_EMAILS_ARE_VERIFIED": "true"])
        #expect(onProblems.isEmpty && on.emailsAreVerified)
        let (off, _) = Self.read(["AUTH_JWT_SECRET": Self.hsSecret, "AUTH_JWT_ISSUER": "i"])
        #expect(!off.emailsAreVerified)
        let (_, bad) = Self.read(["AUTH_JWT_SECRET": Self.hsSecret, "AUTH_JWT_ISSUER": "i", "AUTH_EMAILS_ARE_VERIFIED": "maybe"])
        #expect(bad.map(\.variable) == ["AUTH_EMAILS_ARE_VERIFIED"])
        // Disabled auth ignores it: typed emails are never verified.
        let (disabled, _) = Self.read(["AUTH_DISABLED": "true", "AUTH_EMAILS_ARE_VERIFIED": "true"])
        #expect(disabled.isDisabled && !disabled.emailsAreVerified)
    }
}
