import ServiceSettings
import CryptoPrimitives
import Foundation
import ServiceRuntime
import StorefrontCLI
import Testing

/// `dev-token --iss/--aud/--email-verified` and their defaults.
@Suite struct DevTokenFlagsTests {
    static let secret = "cli-flags-secret-0123456789abcdef0123456789"
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func claims(_ arguments: [String], environment: [String: String] = [:]) throws -> JWTClaims {
        let token = try DevTokenCommand.run(
            try CommandLineArguments(["dev-token", "--sub", "u-1", "--email", "ada@example.com"] + arguments),
            environment: Environment(["AUTH_JWT_SECRET": secret].merging(environment) { a, _ in a }), now: now)
        return try JWTVerifier(key: try .hs256(secret: Array(secret.utf8)), now: { now }).verify(token)
    }

    @Test func defaultsAreTheLocalStacksIssuerAndAudience() throws {
        let claims = try Self.claims([])
        #expect(claims.issuer == "storefront-dev" && claims.issuer == DevTokenCommand.defaultIssuer)
        #expect(claims.audience == ["storefront-app"] && claims.audience == [DevTokenCommand.defaultAudience])
        #expect(!claims.emailVerified)
        #expect(claims["email_verified"] == .bool(false))
    }

    @Test func environmentOverridesTheDefaults() throws {
        let claims = try Self.claims([], environment: ["AUTH_JWT_ISSUER": "https://id.example.com", "AUTH_JWT_AUDIENCE": "shop"])
        #expect(claims.issuer == "https://id.example.com" && claims.audience == ["shop"])
    }

    @Test func flagsOverrideTheEnvironment() throws {
        let claims = try Self.claims(
            ["--iss", "flag-issuer", "--aud=flag-audience"],
            environment: ["AUTH_JWT_ISSUER": "env-issuer", "AUTH_JWT_AUDIENCE": "env-audience"])
        #expect(claims.issuer == "flag-issuer" && claims.audience == ["flag-audience"])
        // An empty value leaves the claim out.
        let bare = try Self.claims(["--iss=", "--aud="], environment: ["AUTH_JWT_ISSUER": "env-issuer"])
        #expect(bare.issuer == nil && bare.audience.isEmpty && bare["iss"] == nil && bare["aud"] == nil)
    }

    @Test func emailVerifiedFlag() throws {
        #expect(try Self.claims(["--email-verified"]).emailVerified)
        #expect(try Self.claims(["--email-verified", "--ttl", "60"]).emailVerified)
        #expect(try Self.claims(["--email-verified=true"]).emailVerified)
        #expect(try !Self.claims(["--email-verified", "false"]).emailVerified)
        #expect(throws: CommandLineArguments.UsageError.self) { try Self.claims(["--email-verified", "perhaps"]) }
    }

    @Test func tokensPassAVerifierCheckingIssuerAndAudience() throws {
        let token = try DevTokenCommand.run(
            try CommandLineArguments(["dev-token", "--sub", "u-2", "--email", "b@example.com", "--email-verified"]),
            environment: Environment(["AUTH_JWT_SECRET": Self.secret, "AUTH_JWT_ISSUER": "storefront-dev", "AUTH_JWT_AUDIENCE": "storefront-app"]),
            now: Self.now)
        let verifier = JWTVerifier(
            key: try .hs256(secret: Array(Self.secret.utf8)), issuer: "storefront-dev", audience: "storefront-app",
            now: { Self.now })
        let claims = try verifier.verify(token)
        #expect(claims.subject == "u-2" && claims.email == "b@example.com" && claims.emailVerified)
        let strict = JWTVerifier(key: try .hs256(secret: Array(Self.secret.utf8)), issuer: "other", now: { Self.now })
        #expect(throws: JWTError.invalidIssuer) { try strict.verify(token) }
    }

    @Test func liveModeRefusesToMint() throws {
        let error = try #require(throws: ConfigurationError.self) { try Self.claims([], environment: ["STOREFRONT_MODE": "live"]) }
        #expect(error.problems.map(\.variable) == ["STOREFRONT_MODE"] && error.description.contains("test tokens only"))
        #expect(try Self.claims([], environment: ["STOREFRONT_MODE": "test"]).subject == "u-1")
        #expect(throws: ConfigurationError.self, "an unknown mode is not taken for test") {
            try Self.claims([], environment: ["STOREFRONT_MODE": "production"])
        }
    }
}
