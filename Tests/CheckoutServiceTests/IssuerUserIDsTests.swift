import CryptoPrimitives
import Foundation
import HTTPServer
import Postgres
import Providers
import ServiceRuntime
import ServiceSettings
import Telemetry
import TestSupport
import Testing

@testable import CheckoutService

/// Several token issuers, one app user per (issuer, subject): the same `sub`
/// from two issuers never becomes one user, one issuer keeps the plain `sub`,
/// and Storefront's anonymous ids stay the server's own. No server, database
/// or broker: configurations are read from variables and requests go through
/// the authenticator and the router.
@Suite struct IssuerUserIDsTests {
    static let secret = Array("issuer-user-ids-tests-hs256-secret-0123456789".utf8)
    static let issuerA = "https://a.example.com", issuerB = "https://b.example.com"

    static func read(_ values: [String: String]) -> (AuthConfiguration, [ConfigurationProblem]) {
        var reader = ConfigReader(Environment(values.merging(["AUTH_JWT_SECRET": String(decoding: secret, as: UTF8.self)]) { a, _ in a }))
        let configuration = AuthConfiguration.fromEnvironment(&reader, mode: .test)
        return (configuration, reader.problems)
    }

    /// Both issuers accepted, A's users keeping their plain ids (the users the deployment already had), B's prefixed.
    static func twoIssuers() throws -> AuthConfiguration {
        let (configuration, problems) = read([
            "AUTH_JWT_ISSUER": "\(issuerA),\(issuerB)", "AUTH_JWT_USER_ID_PREFIXES": "\(issuerA)=, \(issuerB)=b",
        ])
        try #require(problems.isEmpty, "\(problems)")
        return configuration
    }

    static func token(iss: String, sub: String) throws -> String {
        try JWTSigner(hs256Secret: secret).sign([
            "iss": .string(iss), "sub": .string(sub), "email": .string("\(sub)@example.com"),
            "exp": .int(Int(Date().timeIntervalSince1970) + 600),
        ])
    }

    static func request(_ target: String = "/api/entitlements", token: String) throws -> HTTPRequest {
        try HTTPRequest(method: .get, target: target, headers: ["Authorization": "Bearer \(token)"])
    }

    static func userID(_ authenticator: Authenticator, iss: String, sub: String) async throws -> String {
        try await authenticator.authenticate(request(token: token(iss: iss, sub: sub)), fallbackEmail: nil).id
    }

    /// Whether the token is refused as 401 (any other answer, or none, is false).
    static func refused(_ authenticator: Authenticator, iss: String, sub: String) async throws -> Bool {
        let request = try request(token: token(iss: iss, sub: sub))
        do {
            _ = try await authenticator.authenticate(request, fallbackEmail: nil)
            return false
        } catch {
            return error.status == .unauthorized
        }
    }

    // MARK: - Authenticator

    @Test func theSameSubjectFromTwoIssuersIsTwoUsers() async throws {
        let authenticator = Authenticator(configuration: try Self.twoIssuers())
        #expect(try await Self.userID(authenticator, iss: Self.issuerA, sub: "alice") == "alice")
        #expect(try await Self.userID(authenticator, iss: Self.issuerB, sub: "alice") == "b:alice")
        // The unprefixed issuer cannot name the other's users: a sub that reads as a prefixed id is refused.
        #expect(try await Self.refused(authenticator, iss: Self.issuerA, sub: "b:alice"))
        // The prefixed issuer's own subjects may hold anything, a colon included.
        #expect(try await Self.userID(authenticator, iss: Self.issuerB, sub: "b:alice") == "b:b:alice")
        // An issuer not listed never gets through, prefix or not.
        #expect(try await Self.refused(authenticator, iss: "https://c.example.com", sub: "alice"))
    }

    @Test func everyIssuerMayBePrefixed() async throws {
        let (configuration, problems) = Self.read([
            "AUTH_JWT_ISSUER": "\(Self.issuerA),\(Self.issuerB)", "AUTH_JWT_USER_ID_PREFIXES": "\(Self.issuerA)=a,\(Self.issuerB)=b",
        ])
        #expect(problems.isEmpty, "\(problems)")
        let authenticator = Authenticator(configuration: configuration)
        #expect(try await Self.userID(authenticator, iss: Self.issuerA, sub: "alice") == "a:alice")
        #expect(try await Self.userID(authenticator, iss: Self.issuerB, sub: "alice") == "b:alice")
        // With no plain issuer, no subject is reserved but the anonymous ids.
        #expect(try await Self.userID(authenticator, iss: Self.issuerA, sub: "b:alice") == "a:b:alice")
    }

    @Test func oneIssuerKeepsThePlainSubject() async throws {
        let (configuration, problems) = Self.read(["AUTH_JWT_ISSUER": Self.issuerA])
        #expect(problems.isEmpty, "\(problems)")
        #expect(configuration.userIDs == .plain)
        let authenticator = Authenticator(configuration: configuration)
        #expect(try await Self.userID(authenticator, iss: Self.issuerA, sub: "alice") == "alice")
        #expect(try await Self.userID(authenticator, iss: Self.issuerA, sub: "b:alice") == "b:alice", "no prefixes, nothing reserved")
    }

    @Test func anonymousIdsAreTheServersOwn() async throws {
        let made = AnonymousUsers(ownership: TestOwnership.proof, now: { Date() })
        let anonymousUsers = try #require(made)
        let minted = try anonymousUsers.mint()
        for configuration in [try Self.twoIssuers(), Self.read(["AUTH_JWT_ISSUER": Self.issuerA]).0] {
            let authenticator = Authenticator(configuration: configuration, anonymousUsers: anonymousUsers)
            // The server's own token names its anonymous user…
            let anonymous = try await authenticator.authenticate(Self.request(token: minted.token), fallbackEmail: nil)
            #expect(anonymous.id == minted.appUserId && anonymous.isAnonymous)
            // …and no issuer's token can name the same id.
            #expect(try await Self.refused(authenticator, iss: Self.issuerA, sub: minted.appUserId))
        }
        let prefixed = Authenticator(configuration: try Self.twoIssuers(), anonymousUsers: anonymousUsers)
        #expect(try await Self.refused(prefixed, iss: Self.issuerB, sub: minted.appUserId))
        // Only the exact shape is reserved.
        #expect(try await Self.userID(prefixed, iss: Self.issuerA, sub: "anon_someone") == "anon_someone")
    }

    @Test func anIdLongerThanEveryRouteTakesIsRefused() async throws {
        let authenticator = Authenticator(configuration: try Self.twoIssuers())
        let longest = String(repeating: "x", count: 254)
        #expect(try await Self.userID(authenticator, iss: Self.issuerB, sub: longest) == "b:" + longest)
        #expect(try await Self.refused(authenticator, iss: Self.issuerB, sub: longest + "x"))
        #expect(try await Self.userID(authenticator, iss: Self.issuerA, sub: longest + "xx") == longest + "xx")
    }

    // MARK: - Through the router

    /// Issuer A's alice has an entitlement change on the live stream; issuer
    /// B's alice, with the same `sub`, reads none of it, and reads her own.
    @Test func twoIssuersUsersWithOneSubjectCannotReadEachOthersEntitlements() async throws {
        let hub = EntitlementChangeHub()
        func change(_ id: String, user: String) -> StreamedEntitlementChange {
            StreamedEntitlementChange(
                id: id, appUserID: user, value: Array(#"{"id":"\#(id)","type":"entitlement.granted","app_user_id":"\#(user)"}"#.utf8))
        }
        hub.publish(change("a-0", user: "alice"))
        hub.publish(change("a-1", user: "alice"))
        hub.publish(change("b-0", user: "b:alice"))
        hub.publish(change("b-1", user: "b:alice"))
        let pool = PostgresPool(configuration: try PostgresConfiguration(url: "postgresql://nobody@127.0.0.1:1/none?connect_timeout=1"))
        let logger = Logger(service: "issuer-user-ids-tests", minimumLevel: .critical)
        let app = buildCheckoutApplication(
            auth: try Self.twoIssuers(), ownership: TestOwnership.proof, providers: ProviderRegistry(providers: []), pool: pool,
            publisher: NoPublisher(), logger: logger, changes: hub)
        func poll(iss: String, after cursor: String) async throws -> (events: [String], reset: Bool) {
            let request = try Self.request(
                "\(EntitlementStreamRoute.path)?after=\(cursor)&wait=1", token: try Self.token(iss: iss, sub: "alice"))
            let response = await app.respond(to: request, logger: logger)
            #expect(response.status == .ok, "\(String(decoding: response.body, as: UTF8.self))")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            let events = (object["events"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            return (events, object["reset"] as? Bool ?? false)
        }
        let aliceOfA = try await poll(iss: Self.issuerA, after: "a-0")
        #expect(aliceOfA.events == ["a-1"] && !aliceOfA.reset)
        // B's alice: A's event is no cursor of hers, and nothing of A's comes back.
        let aliceOfBAtA = try await poll(iss: Self.issuerB, after: "a-0")
        #expect(aliceOfBAtA.events.isEmpty && aliceOfBAtA.reset)
        let aliceOfB = try await poll(iss: Self.issuerB, after: "b-0")
        #expect(aliceOfB.events == ["b-1"] && !aliceOfB.reset)
        let aliceOfAAtB = try await poll(iss: Self.issuerA, after: "b-0")
        #expect(aliceOfAAtB.events.isEmpty && aliceOfAAtB.reset)
        await pool.close()
    }

    /// Fails nothing; the stream publishes nothing.
    struct NoPublisher: RecordPublisher {
        func publish(topic: String, key: String, value: [UInt8]) async throws {}
    }

    // MARK: - AUTH_JWT_USER_ID_PREFIXES

    @Test func severalIssuersNeedAPrefixEach() {
        let (_, none) = Self.read(["AUTH_JWT_ISSUER": "\(Self.issuerA),\(Self.issuerB)"])
        #expect(none.map(\.variable) == ["AUTH_JWT_USER_ID_PREFIXES"])
        #expect(none.first?.message.contains(Self.issuerA) == true && none.first?.message.contains(Self.issuerB) == true)
        let (_, one) = Self.read(["AUTH_JWT_ISSUER": "\(Self.issuerA),\(Self.issuerB)", "AUTH_JWT_USER_ID_PREFIXES": "\(Self.issuerA)="])
        #expect(one.map(\.variable) == ["AUTH_JWT_USER_ID_PREFIXES"])
        #expect(one.first?.message.contains(Self.issuerB) == true && one.first?.message.contains(Self.issuerA) == false)
        // One issuer listed twice is one issuer.
        let (_, twice) = Self.read(["AUTH_JWT_ISSUER": "\(Self.issuerA),\(Self.issuerA)"])
        #expect(twice.isEmpty, "\(twice)")
    }

    @Test func badPrefixListsAreRefused() {
        let two = "\(Self.issuerA),\(Self.issuerB)"
        for (items, fragment) in [
            ("\(Self.issuerA)=a,\(Self.issuerB)=a", "one prefix to two issuers"),
            ("\(Self.issuerA)=,\(Self.issuerB)=", "more than one issuer"),
            ("\(Self.issuerA)=a,\(Self.issuerB)=B", "lower-case"),
            ("\(Self.issuerA)=a,\(Self.issuerB)=b:c", "lower-case"),
            ("\(Self.issuerA)=a,\(Self.issuerB)=-b", "lower-case"),
            ("\(Self.issuerA)=a,\(Self.issuerB)=\(String(repeating: "b", count: 33))", "1 to 32"),
            ("\(Self.issuerA)=a,\(Self.issuerB)", "ISSUER=PREFIX"),
            ("\(Self.issuerA)=a,\(Self.issuerB)=b,https://c.example.com=c", "https://c.example.com is not in AUTH_JWT_ISSUER"),
            ("\(Self.issuerA)=a,\(Self.issuerB)=b,\(Self.issuerA)=c", "twice"),
        ] {
            let (_, problems) = Self.read(["AUTH_JWT_ISSUER": two, "AUTH_JWT_USER_ID_PREFIXES": items])
            #expect(problems.contains { $0.variable == "AUTH_JWT_USER_ID_PREFIXES" && $0.message.contains(fragment) }, "\(items): \(problems)")
        }
        // Without an issuer list any issuer is accepted, so no prefix could be enforced.
        let (_, anyIssuer) = Self.read(["AUTH_JWT_AUDIENCE": "app", "AUTH_JWT_USER_ID_PREFIXES": "\(Self.issuerA)=a"])
        #expect(anyIssuer.map(\.variable) == ["AUTH_JWT_USER_ID_PREFIXES"])
    }

    @Test func severalKeySourcesWithoutAnIssuerListAreWarnedAbout() throws {
        let jwks = ["AUTH_JWT_AUDIENCE": "app", "AUTH_JWT_JWKS_URL": "https://keys.example.com/jwks.json"]
        let (both, problems) = Self.read(jwks)
        #expect(problems.isEmpty, "\(problems)")
        #expect(both.startupWarnings.contains { $0.contains("keyed by sub alone") }, "\(both.startupWarnings)")
        let (listed, _) = Self.read(jwks.merging(["AUTH_JWT_ISSUER": Self.issuerA]) { a, _ in a })
        #expect(!listed.startupWarnings.contains { $0.contains("keyed by sub alone") })
        let (single, _) = Self.read(["AUTH_JWT_AUDIENCE": "app"])
        #expect(single.startupWarnings.isEmpty, "one key source: \(single.startupWarnings)")
    }
}
