import BillingModel
import CheckoutService
import Foundation
import Postgres
import ServiceSettings
import StorefrontCLI
import Testing
import WebhookSenderService

/// `storefront api-keys` and `storefront endpoints` as the migrations' admin
/// role (`storefront_admin`, `STOREFRONT_ADMIN_DATABASE_URL`), against the real
/// server: every subcommand works, and nothing beyond keys and endpoints does.
@Suite struct AdminRoleTests {
    typealias Roles = DatabaseRolesTests

    /// Runs `storefront api-keys …` or `storefront endpoints …` connected as `url`; what it printed, line by line.
    static func run(_ words: [String], url: String) async throws -> [String] {
        let output = Output()
        let arguments = try CommandLineArguments(words)
        let environment = Environment(["STOREFRONT_ADMIN_DATABASE_URL": url])
        if words.first == "api-keys" {
            try await APIKeysCommand.run(arguments, environment: environment) { output($0) }
        } else {
            try await EndpointsCommand.run(arguments, environment: environment) { output($0) }
        }
        return output.text.split(separator: "\n").map(String.init)
    }

    @Test func theAdminRoleIsAGroupWithoutLoginMadeByBothMigrations() async throws {
        try await Roles.withMigratedDatabase { pool, _ in
            let rows = try await pool.query(
                "SELECT rolcanlogin, rolsuper, rolcreaterole, rolcreatedb, rolbypassrls FROM pg_roles WHERE rolname = \(AdminDatabase.role)")
            let flags = try rows.map { try $0.decode((Bool, Bool, Bool, Bool, Bool).self) }
            #expect(flags.count == 1 && flags.allSatisfy { !$0.0 && !$0.1 && !$0.2 && !$0.3 && !$0.4 }, "\(flags)")
            #expect(CheckoutSchema.migrations.contains { $0.sql.contains("CREATE ROLE storefront_admin") })
            #expect(WebhookSenderSchema.migrations.contains { $0.sql.contains("CREATE ROLE storefront_admin") })
        }
    }

    @Test func apiKeysCreateListAndRevokeAsTheAdminRole() async throws {
        try await Roles.withMigratedDatabase { pool, url in
            try await Roles.asMember(of: AdminDatabase.role, database: url) { admin, loginURL in
                let created = try await Self.run(
                    ["api-keys", "create", "--name", "backend", "--scope", "entitlements:read", "--expires-in", "90d"], url: loginURL)
                let key = try #require(created.first.flatMap(APIKey.init(parsing:)), "\(created)")
                let listed = try await Self.run(["api-keys", "list"], url: loginURL)
                #expect(listed.count == 1 && listed[0].hasPrefix("\(key.keyID)  backend  scopes=entitlements:read"), "\(listed)")
                #expect(try await Self.run(["api-keys", "revoke", key.keyID], url: loginURL) == ["revoked \(key.keyID)"])
                let stored = try #require(try await PostgresAPIKeyStore(pool: pool).find(keyID: key.keyID))
                #expect(stored.revokedAt != nil)
                // A key's scopes, hash and expiry are fixed when it is made; a revoked key stays on record.
                for sql: PostgresQuery in [
                    "UPDATE checkout_api_keys SET scopes = 'subscriptions:manage'", "UPDATE checkout_api_keys SET key_hash = '\\x00'",
                    "UPDATE checkout_api_keys SET expires_at = NULL", "UPDATE checkout_api_keys SET last_used_at = now()",
                    "DELETE FROM checkout_api_keys", "TRUNCATE checkout_api_keys",
                ] { await Roles.expectDenied(admin, sql) }
            }
        }
    }

    @Test func endpointsAddListRotateReplayAndRemoveAsTheAdminRole() async throws {
        try await Roles.withMigratedDatabase { pool, url in
            try await Roles.asMember(of: AdminDatabase.role, database: url) { admin, loginURL in
                let added = try await Self.run(["endpoints", "add", "--url", "https://api.example.com/hooks"], url: loginURL)
                let id = try #require(added.first?.split(separator: " ").dropFirst().first.map(String.init), "\(added)")
                _ = try await Self.run(["endpoints", "disable", id], url: loginURL)
                _ = try await Self.run(["endpoints", "enable", id], url: loginURL)
                _ = try await Self.run(["endpoints", "rotate-secret", id], url: loginURL)
                // A dead delivery, queued and spent as the sender would (here as the owner).
                let endpoint = try #require(try await EndpointStore(pool: pool).all().first)
                let change = EntitlementChange(
                    id: "evt-admin", type: .revoked, appUserID: "user-1", occurredAt: Date(),
                    cause: .init(kind: .command, provider: nil, reference: "c"), before: EntitlementsResponse(entitlements: []),
                    after: EntitlementsResponse(entitlements: []))
                let deliveries = DeliveryStore(pool: pool)
                #expect(try await deliveries.enqueue([OutgoingEvent(change, body: "{}")], for: [endpoint]) == 1)
                let due = try #require(try await deliveries.claimDue(limit: 1, lease: .seconds(30)).first)
                try await deliveries.record(due, outcome: .failed(status: 500, reason: "answered 500"), retryAt: nil)
                let listed = try await Self.run(["endpoints", "list"], url: loginURL)
                #expect(listed == ["\(id) enabled https://api.example.com/hooks [all types] pending 0 delivered 0 dead 1"], "\(listed)")
                #expect(try await Self.run(["endpoints", "replay", id], url: loginURL) == ["replayed 1 dead delivery"])
                // A queued delivery's body, user and endpoint are the sender's to write, not the operator's.
                for sql: PostgresQuery in [
                    "UPDATE webhook_deliveries SET body = '{\"forged\":true}'", "UPDATE webhook_deliveries SET app_user_id = 'mallory'",
                    "INSERT INTO webhook_deliveries (endpoint_id, event_id, app_user_id, event_type, body) VALUES (\(id), 'x', 'u', 't', '{}')",
                    "DELETE FROM webhook_deliveries",
                ] { await Roles.expectDenied(admin, sql) }
                // Removing the endpoint takes its queue with it (the foreign key's cascade, not a grant).
                _ = try await Self.run(["endpoints", "remove", id], url: loginURL)
                #expect(try await EndpointStore(pool: pool).all().isEmpty)
                #expect(try await deliveries.counts().isEmpty)
            }
        }
    }

    @Test func theAdminRoleReachesNothingButKeysAndEndpoints() async throws {
        try await Roles.withMigratedDatabase { _, url in
            try await Roles.asMember(of: AdminDatabase.role, database: url) { admin, _ in
                for sql in Roles.nobodyMay + [
                    "SELECT * FROM billing_events", "SELECT dedup_key FROM billing_events", "SELECT * FROM revenue_events",
                    "SELECT * FROM subscriptions", "SELECT * FROM orders", "SELECT * FROM app_users", "SELECT * FROM purchase_owners",
                    "SELECT * FROM checkouts", "SELECT * FROM entitlement_outbox", "SELECT * FROM user_aliases",
                    "UPDATE subscriptions SET status = 'active'", "UPDATE orders SET app_user_id = 'mallory'",
                    "INSERT INTO subscriptions (provider, subscription_id, app_user_id, status, last_event_key) VALUES ('p', 's', 'mallory', 'active', 'k')",
                    "INSERT INTO purchase_owners (provider, purchase_type, purchase_id, app_user_id, source, evidence) VALUES ('p', 'order', 'x', 'u', 'email', 'x')",
                    "SELECT * FROM checkout_idempotency_keys", "SELECT * FROM checkout_redemptions", "SELECT * FROM checkout_user_merges",
                    "SELECT * FROM provider_request_ledger",
                    "INSERT INTO webhook_sender_schema_migrations (version, name, checksum) VALUES (99, 'x', 'x')",
                    "DROP TABLE webhook_endpoints", "TRUNCATE webhook_endpoints", "ALTER TABLE checkout_api_keys ADD COLUMN sneaky int",
                ] { await Roles.expectDenied(admin, sql) }
            }
        }
    }
}
