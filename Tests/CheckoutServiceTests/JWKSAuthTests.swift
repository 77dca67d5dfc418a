import ServiceSettings
@testable import CheckoutService
import CryptoPrimitives
import Foundation
import HTTPServer
import Postgres
import Providers
import ServiceRuntime
import Telemetry
import TestSupport
import Testing
import TokenVerification

/// `AUTH_JWT_JWKS_URL` and the other token settings as the checkout reads
/// them, and identity-provider tokens (RS256 and ES256 from a local JWKS
/// endpoint) through the checkout's router.
@Suite struct JWKSAuthTests {
    static let issuer = "https://securetoken.google.com/storefront-test"
    static let audience = "storefront-test"
    static let secret = "jwks-auth-tests-hs256-secret-0123456789abcdef"

    static func read(_ values: [String: String], mode: DeploymentMode = .test) -> (AuthConfiguration, ConfigReader) {
        var reader = ConfigReader(Environment(values))
        let configuration = AuthConfiguration.fromEnvironment(&reader, mode: mode)
        return (configuration, reader)
    }

    static func token(_ signer: JWTSigner, sub: String = "idp-user", extra: [String: JOSEValue] = [:]) throws -> String {
        let now = Int(Date().timeIntervalSince1970)
        var claims: [String: JOSEValue] = [
            "iss": .string(issuer), "aud": .string(audience), "sub": .string(sub), "iat": .int(now - 5), "exp": .int(now + 600),
        ]
        claims.merge(extra) { _, new in new }
        return try signer.sign(claims)
    }

    // MARK: - Settings

    @Test func jwksURLsAreReadAndCombineWithTheSecret() throws {
        let (jwks, reader) = Self.read([
            "AUTH_JWT_JWKS_URL":
                "https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com, https://appleid.apple.com/auth/keys",
            "AUTH_JWT_ISSUER": "\(Self.issuer), https://appleid.apple.com", "AUTH_JWT_AUDIENCE": "\(Self.audience),com.example.app",
            "AUTH_JWT_MAX_AGE": "1h",
            // Two issuers: their users are kept apart (IssuerUserIDsTests).
            "AUTH_JWT_USER_ID_PREFIXES": "\(Self.issuer)=, https://appleid.apple.com=apple",
        ])
        #expect(reader.problems.isEmpty, "\(reader.problems)")
        let settings = try #require(jwks.tokenSettings)
        #expect(settings.keySetURLs.map(\.absoluteString).count == 2 && settings.staticKeys.isEmpty)
        #expect(settings.rules.issuers == [Self.issuer, "https://appleid.apple.com"])
        #expect(settings.rules.audiences == [Self.audience, "com.example.app"])
        #expect(settings.rules.maxAge == .seconds(3600) && settings.rules.leeway == .seconds(60))
        #expect(jwks.summary == "JWKS(2)" && jwks.startupWarnings.isEmpty)

        let (combined, combinedReader) = Self.read([
            "AUTH_JWT_SECRET": Self.secret, "AUTH_JWT_JWKS_URL": "https://id.example.com/.well-known/jwks.json", "AUTH_JWT_ISSUER": Self.issuer,
            "AUTH_JWT_AUDIENCE": Self.audience,
        ])
        #expect(combinedReader.problems.isEmpty && combined.summary == "HS256,JWKS(1)")
        // Duplicates count once.
        let (deduplicated, _) = Self.read([
            "AUTH_JWT_JWKS_URL": "https://a.example/k,https://a.example/k", "AUTH_JWT_ISSUER": "i", "AUTH_JWT_AUDIENCE": "a",
        ])
        #expect(deduplicated.tokenSettings?.keySetURLs.count == 1)
    }

    /// A malformed URL is a configuration error: the launcher exits 78.
    @Test func malformedJWKSURLsAreConfigurationErrors() {
        for value in [
            "not a url", "ftp://id.example.com/keys", "https://", "https://user:secret@id.example.com/keys", "https://id.example.com/keys#x", "/keys",
        ] {
            let (_, reader) = Self.read(["AUTH_JWT_JWKS_URL": value, "AUTH_JWT_ISSUER": "i", "AUTH_JWT_AUDIENCE": "a"])
            #expect(reader.problems.map(\.variable) == ["AUTH_JWT_JWKS_URL"], "\(value)")
            #expect(!reader.problems.description.contains("secret"), "a URL's user info was echoed")
            #expect(throws: ConfigurationError.self) { try reader.finish() }
        }
        #expect(ServiceConfigurationFailure.exitCode == 78)
        let (_, tooMany) = Self.read([
            "AUTH_JWT_JWKS_URL": (1...9).map { "https://id\($0).example.com/k" }.joined(separator: ","), "AUTH_JWT_ISSUER": "i",
            "AUTH_JWT_AUDIENCE": "a",
        ])
        #expect(tooMany.problems.map(\.variable) == ["AUTH_JWT_JWKS_URL"])
        let (_, second) = Self.read(["AUTH_JWT_JWKS_URL": "https://ok.example.com/k, nope", "AUTH_JWT_ISSUER": "i", "AUTH_JWT_AUDIENCE": "a"])
        #expect(second.problems.first?.message.hasPrefix("item 2:") == true)
    }

    @Test func plainHTTPOnlyToLoopbackInLiveMode() throws {
        let (_, live) = Self.read(["AUTH_JWT_JWKS_URL": "http://id.example.com/keys", "AUTH_JWT_ISSUER": "i", "AUTH_JWT_AUDIENCE": "a"], mode: .live)
        #expect(live.problems.map(\.variable) == ["AUTH_JWT_JWKS_URL"])
        let (_, loopback) = Self.read(
            ["AUTH_JWT_JWKS_URL": "http://127.0.0.1:9999/keys, http://localhost/k", "AUTH_JWT_ISSUER": "i", "AUTH_JWT_AUDIENCE": "a"], mode: .live)
        #expect(loopback.problems.isEmpty)
        let (test, testReader) = Self.read(
            ["AUTH_JWT_JWKS_URL": "http://auth.internal/keys", "AUTH_JWT_ISSUER": "i", "AUTH_JWT_AUDIENCE": "a"], mode: .test)
        #expect(testReader.problems.isEmpty)
        #expect(test.startupWarnings.count == 1 && test.startupWarnings[0].contains("plain http"))
    }

    @Test func aJWKSNeedsAnAudienceNotJustAnIssuer() {
        // Apple's keys and issuer are every developer's: an issuer alone would take any app's tokens.
        let (_, issuerOnly) = Self.read(["AUTH_JWT_JWKS_URL": "https://appleid.apple.com/auth/keys", "AUTH_JWT_ISSUER": "https://appleid.apple.com"])
        #expect(issuerOnly.problems.map(\.variable) == ["AUTH_JWT_AUDIENCE"])
        #expect(issuerOnly.problems.first?.message.contains("AUTH_JWT_JWKS_URL") == true)
        let (_, nothing) = Self.read(["AUTH_JWT_JWKS_URL": "https://appleid.apple.com/auth/keys"])
        #expect(nothing.problems.map(\.variable) == ["AUTH_JWT_AUDIENCE"], "one problem, naming what to set")
        let (_, audienceOnly) = Self.read(["AUTH_JWT_JWKS_URL": "https://appleid.apple.com/auth/keys", "AUTH_JWT_AUDIENCE": "com.example.app"])
        #expect(audienceOnly.problems.isEmpty)
        // Without a key set an issuer alone is still enough: the key is the deployment's own.
        #expect(Self.read(["AUTH_JWT_SECRET": Self.secret, "AUTH_JWT_ISSUER": "i"]).1.problems.isEmpty)
    }

    @Test func unsafeSettingsAreRefused() {
        // A shared key set signs other apps' tokens: the issuer/audience opt-out is refused with it.
        let (_, optOut) = Self.read(["AUTH_JWT_JWKS_URL": "https://appleid.apple.com/auth/keys", "AUTH_JWT_ALLOW_ANY_ISSUER_AND_AUDIENCE": "true"])
        #expect(optOut.problems.map(\.variable) == ["AUTH_JWT_ALLOW_ANY_ISSUER_AND_AUDIENCE"])
        // The leeway is bounded; the maximum age must be positive.
        let (_, leeway) = Self.read(["AUTH_JWT_SECRET": Self.secret, "AUTH_JWT_ISSUER": "i", "AUTH_JWT_LEEWAY": "301"])
        #expect(leeway.problems.map(\.variable) == ["AUTH_JWT_LEEWAY"])
        #expect(Self.read(["AUTH_JWT_SECRET": Self.secret, "AUTH_JWT_ISSUER": "i", "AUTH_JWT_LEEWAY": "5m"]).1.problems.isEmpty)
        let (_, age) = Self.read(["AUTH_JWT_SECRET": Self.secret, "AUTH_JWT_ISSUER": "i", "AUTH_JWT_MAX_AGE": "0"])
        #expect(age.problems.map(\.variable) == ["AUTH_JWT_MAX_AGE"])
        // No source at all names every way to configure one.
        let (_, none) = Self.read(["AUTH_JWT_ISSUER": "i"])
        #expect(none.problems.map(\.variable) == ["AUTH_JWT_SECRET"])
        #expect(none.problems.first?.message.contains("AUTH_JWT_JWKS_URL") == true)
    }

    // MARK: - Through the router

    static func request(_ token: String?) throws -> HTTPRequest {
        var headers = HTTPHeaders()
        if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
        return try HTTPRequest(method: .get, target: "/api/subscription/status", headers: headers, body: [])
    }

    static func application(_ values: [String: String]) throws -> (CheckoutApplication, PostgresPool) {
        var reader = ConfigReader(Environment(values))
        let auth = AuthConfiguration.fromEnvironment(&reader, mode: .test)
        try reader.finish()
        // Nothing listens there: a request that passes authentication fails next, on the database.
        let pool = PostgresPool(configuration: try PostgresConfiguration(url: "postgresql://nobody@127.0.0.1:1/none?connect_timeout=1"))
        let app = buildCheckoutApplication(
            auth: auth, ownership: TestOwnership.proof, providers: ProviderRegistry(providers: []), pool: pool,
            publisher: AuthRouteTests.RecordingPublisher(),
            logger: Logger(service: "jwks-auth-tests", minimumLevel: .critical))
        return (app, pool)
    }

    @Test func identityProviderTokensPassAuthenticationBesideTheSecret() async throws {
        let rsa = try JWTSigner.generate(.rs256, keyID: "google-rsa")
        let ec = try JWTSigner.generate(.es256, keyID: "supabase-ec")
        let server = try LocalJWKSServer.start(publishing: [rsa, ec])
        let (app, pool) = try Self.application([
            "AUTH_JWT_JWKS_URL": server.url.absoluteString, "AUTH_JWT_SECRET": Self.secret, "AUTH_JWT_ISSUER": Self.issuer,
            "AUTH_JWT_AUDIENCE": Self.audience,
        ])
        let logger = Logger(service: "jwks-auth-tests", minimumLevel: .critical)
        #expect(app.services.contains { $0.name == "jwks-refresher" })
        // The issuer and audience rules hold for every source, the HS256 secret's tokens too.
        let backend = try Self.token(JWTSigner(hs256Secret: Array(Self.secret.utf8)), sub: "backend-test")
        for (name, token) in [("RS256", try Self.token(rsa)), ("ES256", try Self.token(ec)), ("HS256", backend)] {
            let response = await app.respond(to: try Self.request(token), logger: logger)
            // Past authentication, the unreachable database answers (503 database_unavailable,
            // not the 503 of sign-in keys that are not loaded).
            let databaseAnswered = String(decoding: response.body, as: UTF8.self).contains("database_unavailable")
            #expect(response.status == .serviceUnavailable && databaseAnswered, "\(name): \(response.status)")
        }
        let backendWithoutAudience = try JWTSigner(hs256Secret: Array(Self.secret.utf8)).sign([
            "sub": "backend-test", "iss": .string(Self.issuer), "exp": .int(Int(Date().timeIntervalSince1970) + 60),
        ])
        #expect(await app.respond(to: try Self.request(backendWithoutAudience), logger: logger).status == .unauthorized)
        let forged = try JWTSigner.generate(.es256, keyID: "supabase-ec")
        for token in [try Self.token(forged), try Self.token(ec, extra: ["aud": "another-project"]), nil] {
            #expect(await app.respond(to: try Self.request(token), logger: logger).status == .unauthorized)
        }
        #expect(server.requests == 1)

        // The same token settings give the same user, with an Apple-style string email_verified.
        let (configuration, _) = Self.read([
            "AUTH_JWT_JWKS_URL": server.url.absoluteString, "AUTH_JWT_ISSUER": Self.issuer, "AUTH_JWT_AUDIENCE": Self.audience,
        ])
        let appleStyle = try Self.token(ec, extra: ["email": "Ada@Example.com", "email_verified": "true"])
        let user = try await Authenticator(configuration: configuration).authenticate(try Self.request(appleStyle), fallbackEmail: nil)
        #expect(user.id == "idp-user" && user.verifiedEmail == "ada@example.com")
        await server.stop()
        await pool.close()
    }

    /// All three sources at once: the PEM key checks its own tokens first,
    /// whatever their kid, so they never send the key sets fetching.
    @Test func thePEMKeyTheSecretAndAJWKSTogether() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-auth-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try await ChildProcess.run([
            "openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", directory + "/private.pem",
        ])
        _ = try await ChildProcess.run(["openssl", "pkey", "-in", directory + "/private.pem", "-pubout", "-out", directory + "/public.pem"])
        let pemSigner = try JWTSigner(
            rs256PrivateKeyPEM: String(contentsOfFile: directory + "/private.pem", encoding: .utf8), keyID: "not-in-the-jwks")
        let ec = try JWTSigner.generate(.es256, keyID: "ec")
        let server = try LocalJWKSServer.start(publishing: [ec])
        let (configuration, reader) = Self.read([
            "AUTH_JWT_SECRET": Self.secret, "AUTH_JWT_PUBLIC_KEY_FILE": directory + "/public.pem", "AUTH_JWT_JWKS_URL": server.url.absoluteString,
            "AUTH_JWT_ISSUER": Self.issuer, "AUTH_JWT_AUDIENCE": Self.audience,
        ])
        #expect(reader.problems.isEmpty, "\(reader.problems)")
        #expect(configuration.summary == "HS256,RS256-PEM,JWKS(1)")
        let authenticator = Authenticator(configuration: configuration)
        let pemUser = try await authenticator.authenticate(try Self.request(try Self.token(pemSigner, sub: "pem-user")), fallbackEmail: nil)
        #expect(pemUser.id == "pem-user" && server.requests == 0)
        let hsUser = try await authenticator.authenticate(
            try Self.request(try Self.token(JWTSigner(hs256Secret: Array(Self.secret.utf8)), sub: "hs-user")), fallbackEmail: nil)
        #expect(hsUser.id == "hs-user" && server.requests == 0)
        let ecUser = try await authenticator.authenticate(try Self.request(try Self.token(ec, sub: "ec-user")), fallbackEmail: nil)
        #expect(ecUser.id == "ec-user" && server.requests == 1)
        // An RS256 token the PEM key did not sign, with an unknown kid: refused after one (rate-limited) look at the JWKS.
        let stranger = try JWTSigner.generate(.rs256, keyID: "stranger")
        await #expect(throws: HTTPError.self) {
            try await authenticator.authenticate(try Self.request(try Self.token(stranger)), fallbackEmail: nil)
        }
        #expect(server.requests == 1)
        await server.stop()
    }

    @Test func aJWKSHostDownAtStartAnswers503NotLogout() async throws {
        let ec = try JWTSigner.generate(.es256, keyID: "k1")
        let server = try LocalJWKSServer.start(publishing: [ec])
        server.fail(status: 500)
        let (app, pool) = try Self.application([
            "AUTH_JWT_JWKS_URL": server.url.absoluteString, "AUTH_JWT_ISSUER": Self.issuer, "AUTH_JWT_AUDIENCE": Self.audience,
        ])
        let logger = Logger(service: "jwks-auth-tests", minimumLevel: .critical)
        let response = await app.respond(to: try Self.request(try Self.token(ec)), logger: logger)
        #expect(response.status == .serviceUnavailable)
        #expect(response.headers["Retry-After"] == "5")
        #expect(String(decoding: response.body, as: UTF8.self).contains("Sign-in keys are not available yet"))
        // A malformed token is still a 401, whatever the keys.
        #expect(await app.respond(to: try Self.request("not.a.jwt"), logger: logger).status == .unauthorized)
        await server.stop()
        await pool.close()
    }
}
