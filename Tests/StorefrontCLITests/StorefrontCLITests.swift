import ServiceSettings
import CryptoPrimitives
import Foundation
import ServiceRuntime
import StorefrontCLI
import Testing

@Suite struct DevTokenCommandTests {
    @Test func mintsATokenTheCheckoutVerifierAccepts() throws {
        let secret = "cli-test-secret-0123456789abcdef0123456789"
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let token = try DevTokenCommand.run(
            try CommandLineArguments(["dev-token", "--sub", "user-9", "--email", "ada@example.com", "--ttl", "60"]),
            environment: Environment(["AUTH_JWT_SECRET": secret, "AUTH_JWT_ISSUER": "storefront-dev"]), now: now)
        let verifier = JWTVerifier(key: try .hs256(secret: Array(secret.utf8)), issuer: "storefront-dev", now: { now.addingTimeInterval(30) })
        let claims = try verifier.verify(token)
        #expect(claims.subject == "user-9")
        #expect(claims.email == "ada@example.com")
        #expect(claims.expiresAt == now.addingTimeInterval(60))
        #expect(throws: JWTError.self) {
            _ = try JWTVerifier(key: try .hs256(secret: Array(secret.utf8)), leeway: .zero, now: { now.addingTimeInterval(61) }).verify(token)
        }
    }

    @Test func withoutAnEmailTheTokenHasNoEmailClaim() throws {
        let secret = String(repeating: "k", count: 32)
        let token = try DevTokenCommand.run(
            try CommandLineArguments(["dev-token", "--sub", "u"]), environment: Environment(["AUTH_JWT_SECRET": secret]))
        let claims = try JWTVerifier(key: try .hs256(secret: Array(secret.utf8))).verify(token)
        #expect(claims.subject == "u" && claims.email == nil && claims.raw["email_verified"] == nil)
    }

    @Test func namesWhatIsMissing() throws {
        #expect(throws: CommandLineArguments.UsageError.self) {
            _ = try DevTokenCommand.run(
                try CommandLineArguments(["dev-token", "--email", "a@b.co"]), environment: Environment(["AUTH_JWT_SECRET": "x"]))
        }
        let error = #expect(throws: ConfigurationError.self) {
            _ = try DevTokenCommand.run(try CommandLineArguments(["dev-token", "--sub", "u", "--email", "a@b.co"]), environment: Environment([:]))
        }
        #expect(error?.variables == ["AUTH_JWT_SECRET"])
    }

    @Test func parsesOptionsInBothSpellings() throws {
        let arguments = try CommandLineArguments(["deadletter", "replay", "--topic=t1", "--group", "g", "--all"])
        #expect(arguments.words == ["deadletter", "replay"])
        #expect(arguments.options == ["topic": "t1", "group": "g", "all": "true"])
    }
}

/// The status command's own checks, before it needs a database.
@Suite struct StatusCommandTests {
    @Test func statusRefusesSomethingThatIsNotAnEmail() async throws {
        await #expect(throws: CommandLineArguments.UsageError.self) {
            try await StatusCommand.run(try CommandLineArguments(["status", "not-an-email"]), environment: Environment([:])) { _ in }
        }
    }
}
