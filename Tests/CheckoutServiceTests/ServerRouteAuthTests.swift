import CheckoutService
import CryptoPrimitives
import Foundation
import HTTPServer
import Postgres
import Providers
import Synchronization
import Telemetry
import TestSupport
import Testing

/// Who may call which routes, through the router with no server: API keys in
/// memory, quotas in memory, and a pool that reaches nothing, so a request
/// that got past authentication shows as a 503 from the database, and one
/// that did not never touches it. `ServerAPITests` runs the same against
/// PostgreSQL with real answers.
@Suite struct ServerRouteAuthTests {
    /// The store's contract in memory.
    final class MemoryKeyStore: APIKeyStore {
        let records = Mutex<[String: APIKeyRecord]>([:])
        let lookups = Mutex(0)
        let uses = Mutex<[String]>([])

        func insert(_ record: APIKeyRecord) async throws { records.withLock { $0[record.keyID] = record } }
        func find(keyID: String) async throws -> APIKeyRecord? {
            lookups.withLock { $0 += 1 }
            return records.withLock { $0[keyID] }
        }
        func list() async throws -> [APIKeyRecord] { records.withLock { Array($0.values) } }
        func revoke(keyID: String, at date: Date) async throws -> Bool {
            records.withLock { records in
                guard records[keyID]?.revokedAt == nil, records[keyID] != nil else { return false }
                records[keyID]?.revokedAt = date
                return true
            }
        }
        func markUsed(keyID: String, at date: Date) async throws { uses.withLock { $0.append(keyID) } }
    }

    static let secret = Array("server-route-tests-hs256-secret-0123456789".utf8)
    static let logger = Logger(service: "server-route-tests", minimumLevel: .critical)

    struct Setup {
        let app: CheckoutApplication
        let keys: MemoryKeyStore
        let pool: PostgresPool
    }

    static func withApp(
        quotas: UserQuotaPolicy = UserQuotaPolicy(), mode: DeploymentMode = .test, _ body: (Setup) async throws -> Void
    ) async throws {
        let unreachable = try PostgresConfiguration(url: "postgresql://nobody@127.0.0.1:1/none?connect_timeout=1")
        let pool = PostgresPool(configuration: unreachable)
        let keys = MemoryKeyStore()
        var configuration = CheckoutConfiguration()
        configuration.quotas = quotas
        configuration.mode = mode
        let app = buildCheckoutApplication(
            configuration: configuration, auth: .jwt(try JWTVerifier(key: .hs256(secret: secret))), ownership: TestOwnership.proof,
            providers: ProviderRegistry(providers: []), pool: pool, publisher: AuthRouteTests.RecordingPublisher(), logger: logger,
            quotaStore: UserQuotaTests.MemoryQuotaStore(), apiKeys: keys)
        try await body(Setup(app: app, keys: keys, pool: pool))
        await pool.close()
    }

    static func key(
        _ store: MemoryKeyStore, scopes: Set<APIKeyScope> = [.entitlementsRead], revoked: Bool = false, mode: DeploymentMode = .test,
        expiresAt: Date? = nil
    ) async throws -> APIKey {
        let key = try APIKey.generate(mode: mode)
        try await store.insert(
            APIKeyRecord(
                keyID: key.keyID, name: "backend", scopes: scopes, hash: key.hash, createdAt: Date().addingTimeInterval(-86_400),
                revokedAt: revoked ? Date() : nil, expiresAt: expiresAt))
        return key
    }

    static func get(_ app: CheckoutApplication, _ path: String, _ headers: [(String, String)]) async throws -> HTTPResponse {
        var fields = HTTPHeaders()
        for (name, value) in headers { fields.add(name: name, value: value) }
        return await app.respond(to: try HTTPRequest(method: .get, target: path, headers: fields), logger: logger)
    }

    static func code(_ response: HTTPResponse) -> String? {
        ((try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any])?["code"] as? String
    }

    @Test func anAPIKeyIsRefusedOnEveryAppRoute() async throws {
        try await Self.withApp { setup in
            let key = try await Self.key(setup.keys)
            let routes: [(HTTPMethod, String)] = [
                (.post, "/api/create-checkout"), (.get, "/api/entitlements"), (.get, "/api/entitlements/stream"),
                (.get, "/api/subscription/status"), (.get, "/api/subscription/portal"), (.post, "/api/subscription/cancel"),
                (.post, "/api/subscription/resume"),
            ]
            for (method, path) in routes {
                for header in [("Authorization", "Bearer \(key.text)"), ("X-API-Key", key.text)] {
                    let request = try HTTPRequest(
                        method: method, target: path, headers: [header.0: header.1, "Content-Type": "application/json"],
                        body: method == .post ? Array(#"{"variantId":"ls_2","subscription_code":"1"}"#.utf8) : [])
                    let response = await setup.app.respond(to: request, logger: Self.logger)
                    #expect(response.status == .forbidden && Self.code(response) == "app_token_required", "\(method) \(path) with \(header.0)")
                }
            }
            #expect(setup.keys.lookups.withLock { $0 } == 0, "an app route looked the key up")
        }
    }

    @Test func serverRoutesTakeOnlyAValidUnrevokedScopedKey() async throws {
        try await Self.withApp { setup in
            let valid = try await Self.key(setup.keys)
            let revoked = try await Self.key(setup.keys, revoked: true)
            let unscoped = try await Self.key(setup.keys, scopes: [])
            let forged = try #require(APIKey(parsing: "sfk_test_\(valid.keyID)_\(String(repeating: "a", count: 64))"))
            let token = try JWTSigner(hs256Secret: Self.secret).sign([
                "sub": .string("user-1"), "exp": .int(Int(Date().timeIntervalSince1970 + 600)),
            ])
            for path in ["/api/users/user-1/entitlements", "/api/users/user-1/subscription"] {
                let cases: [([(String, String)], HTTPStatus, String)] = [
                    ([], .unauthorized, "unauthorized"),
                    ([("Authorization", "Bearer \(token)")], .forbidden, "api_key_required"),
                    ([("Authorization", "Bearer sfk_test_nonsense")], .unauthorized, "invalid_api_key"),
                    ([("Authorization", "Bearer \(forged.text)")], .unauthorized, "invalid_api_key"),
                    ([("X-API-Key", revoked.text)], .unauthorized, "invalid_api_key"),
                    ([("X-API-Key", unscoped.text)], .forbidden, "insufficient_scope"),
                ]
                for (headers, status, code) in cases {
                    let response = try await Self.get(setup.app, path, headers)
                    #expect(response.status == status && Self.code(response) == code, "\(path) \(headers.map(\.0)): \(response.status)")
                }
                // Past authentication, the (unreachable) database answers.
                for header in [("Authorization", "Bearer \(valid.text)"), ("X-API-Key", valid.text)] {
                    let response = try await Self.get(setup.app, path, [header])
                    #expect(response.status == .serviceUnavailable, "\(path) with a valid key: \(response.status)")
                }
            }
            #expect(setup.keys.uses.withLock { $0 }.allSatisfy { $0 == valid.keyID } && !setup.keys.uses.withLock { $0 }.isEmpty)
        }
    }

    @Test func anExpiredKeyIsRefusedLikeARevokedOne() async throws {
        try await Self.withApp { setup in
            let expired = try await Self.key(setup.keys, expiresAt: Date().addingTimeInterval(-1))
            let current = try await Self.key(setup.keys, expiresAt: Date().addingTimeInterval(3600))
            for path in ["/api/users/user-1/entitlements", "/api/users/user-1/subscription"] {
                let refused = try await Self.get(setup.app, path, [("X-API-Key", expired.text)])
                #expect(refused.status == .unauthorized && Self.code(refused) == "invalid_api_key", "\(path): \(refused.status)")
                #expect(refused.headers["WWW-Authenticate"] == "Bearer")
                #expect(String(decoding: refused.body, as: UTF8.self).contains("expired"))
                #expect(try await Self.get(setup.app, path, [("X-API-Key", current.text)]).status == .serviceUnavailable, "not yet expired")
            }
            #expect(!setup.keys.uses.withLock { $0 }.contains(expired.keyID), "an expired key's use is not recorded")
        }
    }

    @Test func aKeyOfTheOtherModeIsRefusedBeforeAnyLookup() async throws {
        for deployment in DeploymentMode.allCases {
            try await Self.withApp(mode: deployment) { setup in
                let other: DeploymentMode = deployment == .live ? .test : .live
                let own = try await Self.key(setup.keys, mode: deployment)
                let foreign = try await Self.key(setup.keys, mode: other)
                let lookups = setup.keys.lookups.withLock { $0 }
                for path in ["/api/users/user-1/entitlements", "/api/users/user-1/subscription"] {
                    let refused = try await Self.get(setup.app, path, [("Authorization", "Bearer \(foreign.text)")])
                    #expect(refused.status == .unauthorized && Self.code(refused) == "api_key_wrong_mode", "\(deployment): \(refused.status)")
                    #expect(String(decoding: refused.body, as: UTF8.self).contains("sfk_\(deployment.rawValue)_"))
                }
                #expect(setup.keys.lookups.withLock { $0 } == lookups, "a key of the other mode is never looked up")
                let served = try await Self.get(setup.app, "/api/users/user-1/entitlements", [("X-API-Key", own.text)])
                #expect(served.status == .serviceUnavailable, "\(deployment)'s own key passes: \(served.status)")
            }
        }
    }

    @Test func onlyAnEntitlementsWriteKeyReachesTheGrantRoutes() async throws {
        try await Self.withApp { setup in
            let read = try await Self.key(setup.keys)
            let manage = try await Self.key(setup.keys, scopes: [.subscriptionsManage])
            let write = try await Self.key(setup.keys, scopes: [.entitlementsWrite])
            let body = Array(#"{"entitlement":"ls_2","duration":"P30D"}"#.utf8)
            let routes: [(HTTPMethod, String, [UInt8])] = [
                (.post, "/api/users/user-1/grants", body), (.delete, "/api/users/user-1/grants/grant_0123456789abcdef0123456789abcdef", []),
            ]
            for (method, path, body) in routes {
                for refused in [read, manage] {
                    let request = try HTTPRequest(
                        method: method, target: path, headers: ["X-API-Key": refused.text, "Content-Type": "application/json"], body: body)
                    let response = await setup.app.respond(to: request, logger: Self.logger)
                    #expect(response.status == .forbidden && Self.code(response) == "insufficient_scope", "\(method) \(path): \(response.status)")
                }
                // Past authentication, the (unreachable) database answers.
                let request = try HTTPRequest(
                    method: method, target: path, headers: ["X-API-Key": write.text, "Content-Type": "application/json"], body: body)
                #expect(await setup.app.respond(to: request, logger: Self.logger).status == .serviceUnavailable, "\(method) \(path)")
            }
            // entitlements:write reads as well.
            #expect(try await Self.get(setup.app, "/api/users/user-1/entitlements", [("X-API-Key", write.text)]).status == .serviceUnavailable)
        }
    }

    @Test func subscriptionsManageAloneOpensBothRoutes() async throws {
        try await Self.withApp { setup in
            let manage = try await Self.key(setup.keys, scopes: [.subscriptionsManage])
            for path in ["/api/users/user-1/entitlements", "/api/users/user-1/subscription"] {
                #expect(try await Self.get(setup.app, path, [("X-API-Key", manage.text)]).status == .serviceUnavailable)
            }
        }
    }

    @Test func eachKeyHasItsOwnQuota() async throws {
        // Quota windows are whole minutes of the clock, and each request here
        // waits seconds for the unreachable database: start early in a minute,
        // so the three requests share one window (a new window admits the third).
        let intoMinute = Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 60)
        if intoMinute > 30 { try await Task.sleep(for: .seconds(60 - intoMinute + 0.5)) }
        try await Self.withApp(quotas: UserQuotaPolicy(apiKeyPerMinute: 2)) { setup in
            let first = try await Self.key(setup.keys)
            let second = try await Self.key(setup.keys)
            for _ in 0..<2 {
                #expect(try await Self.get(setup.app, "/api/users/u/entitlements", [("X-API-Key", first.text)]).status == .serviceUnavailable)
            }
            let refused = try await Self.get(setup.app, "/api/users/u/entitlements", [("X-API-Key", first.text)])
            #expect(refused.status == .tooManyRequests && Self.code(refused) == "rate_limited" && refused.headers["Retry-After"] != nil)
            #expect(String(decoding: refused.body, as: UTF8.self).contains("API key"))
            #expect(try await Self.get(setup.app, "/api/users/u/entitlements", [("X-API-Key", second.text)]).status == .serviceUnavailable)
        }
    }
}
