import CheckoutService
import Foundation
import HTTPServer
import Kafka
import BillingModel
import Postgres
import Telemetry
import TestSupport
import Testing

/// The server API and the key store against PostgreSQL: keys made and
/// revoked in the real table, answers read from real projection rows.
@Suite struct ServerAPITests {
    static func newKey(_ pool: PostgresPool, name: String = "backend") async throws -> APIKey {
        let key = try APIKey.generate(mode: .test)
        try await PostgresAPIKeyStore(pool: pool).insert(
            APIKeyRecord(keyID: key.keyID, name: name, scopes: [.entitlementsRead], hash: key.hash, createdAt: Date()))
        return key
    }

    static func object(_ response: HTTPResponse) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? NSDictionary, "\(response.text)")
    }

    @Test func aServerKeyReadsAnyUsersAnswerAsTheirOwnAppDoes() async throws {
        try await Harness.with { harness in
            try await ProjectionRows.subscription(
                harness.pool, provider: "lemonsqueezy", id: "5001", appUserID: "u-server-1", product: "2", variant: "3",
                plan: "Premium", status: "active", renewsAt: Date().addingTimeInterval(20 * 86_400))
            let key = try await Self.newKey(harness.pool)
            let token = try Harness.token(sub: "u-server-1", email: nil)
            for (server, app) in [
                ("/api/users/u-server-1/entitlements", "/api/entitlements"), ("/api/users/u-server-1/subscription", "/api/subscription/status"),
            ] {
                let byKey = try await harness.request(.get, server, token: nil, headers: [("Authorization", "Bearer \(key.text)")])
                let byApp = try await harness.request(.get, app, token: token)
                #expect(byKey.status == .ok && byApp.status == .ok, "\(byKey.text) / \(byApp.text)")
                #expect(try Self.object(byKey) == (try Self.object(byApp)), "\(server) answers as \(app)")
                #expect(byKey.headers["Cache-Control"] == "no-store")
            }
            let entitlements = try await harness.request(.get, "/api/users/u-server-1/entitlements", token: nil, headers: [("X-API-Key", key.text)])
            let list = try #require(try Self.object(entitlements)["entitlements"] as? [[String: Any]])
            #expect(list.map { $0["identifier"] as? String } == ["ls_2"] && list.first?["is_active"] as? Bool == true)
            // Another user, with nothing: an empty answer, not a refusal.
            let other = try await harness.request(.get, "/api/users/u-server-2/entitlements", token: nil, headers: [("X-API-Key", key.text)])
            let otherList = try Self.object(other)["entitlements"] as? [Any]
            #expect(other.status == .ok && otherList?.isEmpty == true)
            // Percent-encoded ids are decoded like any path parameter.
            let encoded = try await harness.request(.get, "/api/users/u%2Dserver%2D1/entitlements", token: nil, headers: [("X-API-Key", key.text)])
            #expect(try Self.object(encoded) == (try Self.object(entitlements)))
            // The key's use is recorded.
            let record = try #require(try await PostgresAPIKeyStore(pool: harness.pool).find(keyID: key.keyID))
            #expect(record.lastUsedAt.map { abs($0.timeIntervalSinceNow) < 120 } == true)
        }
    }

    @Test func anAppTokenIsRefusedOnServerRoutesAndAKeyOnAppRoutes() async throws {
        try await Harness.with { harness in
            let key = try await Self.newKey(harness.pool)
            let token = try Harness.token(sub: "u-server-3", email: nil)
            let refused = try await harness.request(.get, "/api/users/u-server-3/entitlements", token: token)
            #expect(refused.status == .forbidden && refused.text.contains(#""code":"api_key_required""#), "\(refused.text)")
            for path in ["/api/entitlements", "/api/subscription/status", "/api/entitlements/stream"] {
                let response = try await harness.request(.get, path, token: key.text)
                #expect(response.status == .forbidden && response.text.contains(#""code":"app_token_required""#), "\(path): \(response.text)")
            }
        }
    }

    @Test func aRevokedKeyIsRefusedFromThenOn() async throws {
        try await Harness.with { harness in
            let store = PostgresAPIKeyStore(pool: harness.pool)
            let key = try await Self.newKey(harness.pool)
            let keep = try await Self.newKey(harness.pool, name: "other")
            let path = "/api/users/u-server-4/subscription"
            #expect(try await harness.request(.get, path, token: key.text).status == .ok)
            #expect(try await store.revoke(keyID: key.keyID, at: Date()))
            #expect(try await !store.revoke(keyID: key.keyID, at: Date()), "revoking twice changes nothing")
            let refused = try await harness.request(.get, path, token: key.text)
            #expect(refused.status == .unauthorized && refused.text.contains(#""code":"invalid_api_key""#), "\(refused.text)")
            #expect(try await harness.request(.get, path, token: keep.text).status == .ok, "other keys still work")
            let listed = try await store.list()
            #expect(listed.map(\.keyID) == [key.keyID, keep.keyID] && listed[0].revokedAt != nil && listed[1].revokedAt == nil)
            #expect(listed.allSatisfy { $0.hash.count == 32 && $0.name.count > 0 })
        }
    }
}
