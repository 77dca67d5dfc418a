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
    static func newKey(
        _ pool: PostgresPool, name: String = "backend", scopes: Set<APIKeyScope> = [.entitlementsRead], expiresAt: Date? = nil
    ) async throws -> APIKey {
        let key = try APIKey.generate(mode: .test)
        try await PostgresAPIKeyStore(pool: pool).insert(
            APIKeyRecord(
                keyID: key.keyID, name: name, scopes: scopes, hash: key.hash, createdAt: Date().addingTimeInterval(-60), expiresAt: expiresAt))
        return key
    }

    /// Every string that looks like a URL and every set token field, anywhere in the answer.
    static func capabilities(in value: Any, at path: String = "$") -> [String] {
        let fields: Set<String> = ["email_token", "customer_portal_url", "update_payment_method_url", "authorization_code", "url"]
        switch value {
        case let object as NSDictionary:
            return (object as? [String: Any] ?? [:]).flatMap { key, child in
                (fields.contains(key) && !(child is NSNull) ? ["\(path).\(key) set"] : []) + capabilities(in: child, at: "\(path).\(key)")
            }
        case let array as [Any]:
            return array.flatMap { capabilities(in: $0, at: "\(path)[]") }
        case let string as String:
            return string.contains("://") || string.hasPrefix("www.") || string.hasPrefix("tok_") ? ["\(path): \(string)"] : []
        default:
            return []
        }
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

    @Test func anEntitlementsReadKeyGetsNoCapabilityAndAManageKeyGetsTheAppsAnswer() async throws {
        try await Harness.with { harness in
            let now = Date()
            try await ProjectionRows.subscription(
                harness.pool, provider: "lemonsqueezy", id: "5101", appUserID: "u-scoped-ls", product: "2", variant: "3", plan: "Premium",
                status: "active", renewsAt: now.addingTimeInterval(20 * 86_400),
                portal: "https://shop.lemonsqueezy.com/billing?expires=1&signature=abc", portalSeenAt: now.addingTimeInterval(-60))
            try await ProjectionRows.checkout(
                harness.pool, id: "chk-scoped", provider: "lemonsqueezy", appUserID: "u-scoped-ls", createdAt: now.addingTimeInterval(-300))
            try await ProjectionRows.subscription(
                harness.pool, provider: "paystack", id: "SUB_scoped", appUserID: "u-scoped-ps", plan: "Premium", status: "active",
                renewsAt: now.addingTimeInterval(20 * 86_400), emailToken: "tok_scoped_email")
            let read = try await Self.newKey(harness.pool)
            let manage = try await Self.newKey(harness.pool, name: "support tool", scopes: [.subscriptionsManage])
            for user in ["u-scoped-ls", "u-scoped-ps"] {
                let app = try Self.object(
                    try await harness.request(.get, "/api/subscription/status", token: try Harness.token(sub: user, email: nil)))
                #expect(!Self.capabilities(in: app).isEmpty, "\(user)'s rows hold capabilities: \(app)")
                for path in ["/api/users/\(user)/subscription", "/api/users/\(user)/entitlements"] {
                    let answer = try await harness.request(.get, path, token: nil, headers: [("X-API-Key", read.text)])
                    #expect(answer.status == .ok)
                    let found = Self.capabilities(in: try Self.object(answer))
                    #expect(found.isEmpty, "\(path) with entitlements:read carries \(found)")
                }
                let described = try Self.object(
                    try await harness.request(.get, "/api/users/\(user)/subscription", token: nil, headers: [("X-API-Key", read.text)]))
                #expect(described["active"] as? Bool == true && described["plan_name"] as? String == "Premium")
                #expect(described["subscription_code"] as? String == app["subscription_code"] as? String)
                let full = try await harness.request(.get, "/api/users/\(user)/subscription", token: nil, headers: [("X-API-Key", manage.text)])
                #expect(try Self.object(full) == app, "subscriptions:manage answers as the app's own status")
            }
        }
    }

    @Test func anExpiredKeyIsRefusedAndItsExpiryIsStored() async throws {
        try await Harness.with { harness in
            let store = PostgresAPIKeyStore(pool: harness.pool)
            let soon = Date().addingTimeInterval(2)
            let key = try await Self.newKey(harness.pool, expiresAt: soon)
            let stored = try #require(try await store.find(keyID: key.keyID)?.expiresAt)
            #expect(abs(stored.timeIntervalSince(soon)) < 0.001)
            let path = "/api/users/u-server-5/entitlements"
            #expect(try await harness.request(.get, path, token: key.text).status == .ok)
            try await Task.sleep(for: .seconds(2.5))
            let refused = try await harness.request(.get, path, token: key.text)
            #expect(refused.status == .unauthorized && refused.text.contains(#""code":"invalid_api_key""#), "\(refused.text)")
            await #expect(throws: (any Error).self, "the table refuses an expiry before creation") {
                try await store.insert(
                    APIKeyRecord(
                        keyID: "0123456789ab", name: "x", scopes: [.entitlementsRead], hash: Array(repeating: 0, count: 32), createdAt: Date(),
                        expiresAt: Date().addingTimeInterval(-1)))
            }
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
