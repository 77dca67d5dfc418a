import ServiceSettings
@testable import CheckoutService
import Foundation
import BillingModel
import Postgres
import ProjectionStore
import Entitlements
import ProviderBudget
import ProjectorService
import Retention
import ReconcilerService
import ServiceRuntime
import StorefrontCLI
import Telemetry
import TestSupport
import Testing
import WebhookSenderService

/// The services' database roles, as `storefront migrate` creates and grants
/// them, against the real server: each service's own code works through its
/// role, and everything else it might try is refused (SQLSTATE 42501).
@Suite struct DatabaseRolesTests {
    typealias Roles = ProjectionSchema.ServiceRoles

    /// Runs `body` on a migrated database, seeded with one subscription, one
    /// order, one checkout, one event and one owner (as the superuser), and
    /// drops it afterwards.
    static func withMigratedDatabase<T>(_ body: (PostgresPool, String) async throws -> T) async throws -> T {
        try await FreshDatabase.with(prefix: "test_roles") { pool, url in
            _ = try await MigrateCommand.run(
                environment: Environment(["DATABASE_URL": url]), logger: .init(service: "tests", minimumLevel: .critical))
            try await pool.execute("INSERT INTO app_users (app_user_id, email) VALUES ('user-1', 'ada@example.com')")
            try await pool.execute(
                """
                INSERT INTO subscriptions (provider, subscription_id, app_user_id, customer_email, status, last_event_key, email_token)
                VALUES ('lemonsqueezy', '7', 'user-1', 'ada@example.com', 'active', 'k1', 'secret-token')
                """)
            try await pool.execute("INSERT INTO orders (provider, order_id, app_user_id, status) VALUES ('paystack', 'T1', 'user-1', 'paid')")
            try await pool.execute(
                """
                INSERT INTO checkouts (checkout_id, provider, app_user_id, email, variant_id, url, created_at)
                VALUES ('c1', 'lemonsqueezy', 'user-1', 'ada@example.com', '2', 'https://x', now())
                """)
            try await pool.execute(
                """
                INSERT INTO billing_events (dedup_key, provider, event_name, kind, entity_key, received_at, source_partition, source_offset, event, payload)
                VALUES ('e1', 'lemonsqueezy', 'subscription_created', 'subscriptionCreated', 'lemonsqueezy:7', now(), 0, 0, '{}', '\\x00')
                """)
            try await pool.execute(
                """
                INSERT INTO purchase_owners (provider, purchase_type, purchase_id, app_user_id, source, evidence)
                VALUES ('lemonsqueezy', 'subscription', '7', 'user-1', 'checkout', 'e1')
                """)
            return try await body(pool, url)
        }
    }

    /// Runs `body` on a pool connected as a new login user that is a member
    /// of `group` (as the deployment makes them), then drops the user.
    static func asMember<T>(of group: String, database url: String, _ body: (PostgresPool, String) async throws -> T) async throws -> T {
        let admin = PostgresPool(configuration: try PostgresConfiguration(url: url), options: .init(maximumConnections: 1))
        let login = "login_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        try await admin.execute("CREATE ROLE \(identifier: login) LOGIN IN ROLE \(identifier: group)")
        var components = try #require(URLComponents(string: url))
        components.user = login
        let loginURL = try #require(components.string)
        let pool = PostgresPool(configuration: try PostgresConfiguration(url: loginURL), options: .init(maximumConnections: 2))
        func cleanUp() async {
            await pool.close()
            _ = try? await admin.execute("DROP ROLE \(identifier: login)")
            await admin.close()
        }
        do {
            let value = try await body(pool, loginURL)
            await cleanUp()
            return value
        } catch {
            await cleanUp()
            throw error
        }
    }

    /// Runs `rules` once through `pool` (a service's role) and expects every
    /// rule to have run: a refused statement would leave its rule out.
    static func expectRetentionRuns(_ pool: PostgresPool, _ rules: [RetentionRule], sourceLocation: SourceLocation = #_sourceLocation) async {
        let job = RetentionJob(
            pool: pool, rules: rules, schedule: RetentionSchedule(batchSize: 10, batchPause: .zero), registry: MetricsRegistry(),
            logger: Logger(service: "tests", minimumLevel: .critical))
        let outcomes = await job.runOnce()
        #expect(outcomes.keys.sorted() == rules.map(\.name).sorted(), sourceLocation: sourceLocation)
    }

    static func expectDenied(_ pool: PostgresPool, _ statement: PostgresQuery, sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            try await pool.execute(statement)
            Issue.record("allowed, but should be refused: \(statement.sql)", sourceLocation: sourceLocation)
        } catch let error as PostgresError {
            #expect(error.sqlState == "42501", "\(statement.sql): \(error.debugDescription)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(statement.sql): \(error)", sourceLocation: sourceLocation)
        }
    }

    /// What no service may do, whatever its role.
    static let nobodyMay: [PostgresQuery] = [
        "CREATE TABLE sneaky (id int)",
        "DROP TABLE subscriptions",
        "ALTER TABLE subscriptions ADD COLUMN sneaky int",
        "TRUNCATE billing_events",
        "DELETE FROM billing_events",
        "DELETE FROM subscriptions",
        "UPDATE purchase_owners SET app_user_id = 'mallory'",
        "INSERT INTO schema_migrations (version, name, checksum) VALUES (99, 'x', 'x')",
        "CREATE ROLE sneaky LOGIN SUPERUSER",
    ]

    @Test func everyRoleIsAGroupWithoutLogin() async throws {
        try await Self.withMigratedDatabase { pool, _ in
            let rows = try await pool.query(
                """
                SELECT rolname, rolcanlogin, rolsuper, rolcreaterole, rolcreatedb, rolbypassrls FROM pg_roles
                WHERE rolname LIKE 'storefront\\_%' ORDER BY rolname
                """)
            let found = try rows.map { try $0.decode((String, Bool, Bool, Bool, Bool, Bool).self) }
            #expect(found.map(\.0) == (Roles.all + [WebhookSenderSchema.role, AdminDatabase.role]).sorted())
            #expect(found.allSatisfy { !$0.1 && !$0.2 && !$0.3 && !$0.4 && !$0.5 }, "\(found)")
        }
    }

    @Test func theWebhookSenderWorksItsQueueAndCannotTouchTheEndpointsOrTheProjection() async throws {
        try await Self.withMigratedDatabase { pool, url in
            let endpoint = WebhookEndpoint(
                id: "ep_roles", url: "https://example.com/hook", secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", eventTypes: [])
            try await EndpointStore(pool: pool).add(endpoint)
            try await Self.asMember(of: WebhookSenderSchema.role, database: url) { sender, _ in
                // Its start-up: its schema current, no DDL needed.
                #expect(try await WebhookSenderSchema.migrate(pool: sender).isEmpty)
                #expect(try await EndpointStore(pool: sender).enabled().map(\.id) == ["ep_roles"])
                let change = EntitlementChange(
                    id: "evt-roles", type: .granted, appUserID: "user-1", occurredAt: Date(),
                    cause: .init(kind: .command, provider: nil, reference: "cmd-1"), before: EntitlementsResponse(entitlements: []),
                    after: EntitlementsResponse(entitlements: []))
                let deliveries = DeliveryStore(pool: sender)
                #expect(try await deliveries.enqueue([OutgoingEvent(change, body: "{}")], for: [endpoint]) == 1)
                let due = try await deliveries.claimDue(limit: 10, lease: .seconds(30))
                #expect(due.map(\.eventID) == ["evt-roles"])
                try await deliveries.record(due[0], outcome: .delivered(status: 204), retryAt: nil)
                // Its retention job deletes delivered and dead deliveries.
                await Self.expectRetentionRuns(sender, DeliveryRetention().rules)
                for statement in Self.nobodyMay + [
                    "UPDATE webhook_endpoints SET url = 'https://evil.example'", "DELETE FROM webhook_endpoints",
                    "SELECT * FROM subscriptions", "SELECT * FROM entitlement_outbox",
                ] {
                    await Self.expectDenied(sender, statement)
                }
            }
        }
    }

    @Test func theCheckoutReadsTheProjectionAndKeepsOnlyItsOwnTables() async throws {
        try await Self.withMigratedDatabase { pool, url in
            try await Self.asMember(of: Roles.checkout, database: url) { checkout, _ in
                // Its start-up: both schemas current, no DDL needed.
                #expect(try await CheckoutSchema.migrate(pool: checkout).isEmpty)
                // Status and entitlements, as the routes read them.
                let reader = SubscriptionStatusReader(pool: checkout, resolver: EntitlementResolver(policy: AccessPolicy(testDeployment: true)))
                let snapshot = try await reader.snapshot(for: ProjectionUser(appUserID: "user-1", verifiedEmail: nil))
                #expect(snapshot.subscriptions.map(\.subscriptionID) == ["7"])
                #expect(snapshot.orders.map(\.orderID) == ["T1"])
                // Idempotency keys: claim, answer, release.
                let store = IdempotencyStore(pool: checkout, ttl: .seconds(86_400), wait: .milliseconds(10))
                #expect(try await store.begin(user: "user-1", key: "k", requestHash: "h", checkoutID: "c2") == .acquired)
                try await store.complete(user: "user-1", key: "k", response: "{}")
                #expect(try await store.begin(user: "user-1", key: "k", requestHash: "h", checkoutID: "c3") == .replay("{}"))
                #expect(try await store.begin(user: "user-1", key: "k2", requestHash: "h", checkoutID: "c4") == .acquired)
                await store.release(user: "user-1", key: "k2", checkoutID: "c4")
                // Per-user quotas: count, refuse.
                let quotas = PostgresUserQuotaStore(pool: checkout)
                let limit = UserQuotaPolicy.Limit(requests: 1, window: .seconds(60))
                #expect(try await quotas.consume(user: "user-1", action: .portal, limits: [limit], at: Date()) == nil)
                #expect(try await quotas.consume(user: "user-1", action: .portal, limits: [limit], at: Date()) == limit)
                // The provider ledger it shares with the reconciler.
                let ledger = PostgresProviderLedgerStore(pool: checkout)
                #expect(
                    try await ledger.take(provider: .paystack, window: LedgerWindow.start(of: Date()), ceiling: 5, upTo: 1, at: Date()) == .granted(1)
                )
                try await ledger.pause(provider: .paystack, until: Date().addingTimeInterval(1))
                // Its retention job prunes its own tables and the ledger.
                await Self.expectRetentionRuns(checkout, CheckoutRetention().rules(idempotencyTTL: .seconds(86_400)))
                // API keys: read them and record their use; making and revoking them is the operator's.
                let keys = PostgresAPIKeyStore(pool: checkout)
                _ = try await keys.find(keyID: "000000000000")
                try await keys.markUsed(keyID: "000000000000", at: Date())
                let keyWrites: [PostgresQuery] = [
                    "INSERT INTO checkout_api_keys (key_id, name, scopes, key_hash) VALUES ('x', 'x', 'entitlements:read', '\\x00')",
                    "UPDATE checkout_api_keys SET revoked_at = NULL", "UPDATE checkout_api_keys SET scopes = 'entitlements:read'",
                    "DELETE FROM checkout_api_keys",
                ]
                for sql in keyWrites { await Self.expectDenied(checkout, sql) }

                // Web-first: its redemption links and merges; of the log, only the columns that link a checkout to its purchase.
                _ = try await checkout.query(
                    "SELECT provider, checkout_id, subscription_id, authorization_code, customer_id FROM billing_events WHERE checkout_id = 'x'")
                _ = try await checkout.query("SELECT redemption_id FROM checkout_redemptions")
                // Refunds (projection migration 18): payments, and the log's columns that link a charge to its subscription.
                _ = try await checkout.query(
                    "SELECT payment_id, subscription_id, kind, amount, currency, occurred_at FROM payments WHERE provider = 'x'")
                _ = try await checkout.query("SELECT kind, order_id, plan_code FROM billing_events WHERE order_id = 'x'")
                _ = try await checkout.execute("DELETE FROM checkout_user_merges WHERE anonymous_id = 'x'")
                for sql: PostgresQuery in ["SELECT payload FROM billing_events", "SELECT * FROM user_aliases"] {
                    await Self.expectDenied(checkout, sql)
                }

                // The projection is the projector's: checkout publishes, never writes it.
                for sql in Self.nobodyMay + [
                    "UPDATE subscriptions SET status = 'active'",
                    "INSERT INTO checkouts (checkout_id, provider, app_user_id, email, variant_id, url, created_at) VALUES ('x', 'p', 'u', 'e', 'v', 'u', now())",
                    "INSERT INTO billing_events (dedup_key, provider, event_name, kind, entity_key, received_at, source_partition, source_offset, event, payload) VALUES ('x', 'p', 'n', 'k', 'e', now(), 0, 0, '{}', '\\x00')",
                    "INSERT INTO purchase_owners (provider, purchase_type, purchase_id, app_user_id, source, evidence) VALUES ('p', 'order', 'x', 'u', 'email', 'x')",
                    "UPDATE orders SET app_user_id = 'mallory'",
                    "SELECT * FROM billing_events", "SELECT * FROM app_users", "SELECT * FROM purchase_owners", "SELECT * FROM provider_customers",
                    "TRUNCATE checkout_idempotency_keys", "DROP TABLE checkout_idempotency_keys",
                ] { await Self.expectDenied(checkout, sql) }
            }
        }
    }

    @Test func theReconcilerReadsStatusesAndWritesOnlyTheProviderLedger() async throws {
        try await Self.withMigratedDatabase { pool, url in
            try await Self.asMember(of: Roles.reconciler, database: url) { reconciler, _ in
                // Its drift figures, as the sweeper reads them.
                let statuses = try await PostgresProjectionStatusReader(pool: reconciler).statuses(.lemonsqueezy, subscriptionIDs: ["7", "8"])
                #expect(statuses == ["7": "active"])
                // The provider ledger it shares with the checkout: the only tables it writes.
                let ledger = PostgresProviderLedgerStore(pool: reconciler)
                #expect(
                    try await ledger.take(provider: .lemonsqueezy, window: LedgerWindow.start(of: Date()), ceiling: 5, upTo: 1, at: Date())
                        == .granted(1))
                try await ledger.pause(provider: .lemonsqueezy, until: Date().addingTimeInterval(1))
                // The event log, as the revenue gauges read it: the view of migration 10, never the table.
                try await pool.execute(
                    """
                    INSERT INTO billing_events (dedup_key, provider, event_name, kind, entity_key, subscription_id, received_at, source_partition,
                        source_offset, event, payload)
                    VALUES ('e2', 'paystack', 'subscription.create', 'subscriptionCreated', 'paystack:CUS_1', 'SUB_1', now(), 0, 1,
                        '{"status": "active", "customerEmail": "ada@example.com", "emailToken": "tok", "authorizationCode": "AUTH_1"}', '\\x00')
                    """)
                #expect(try await RevenueLog.read(from: reconciler, before: Date()).rowsRead == 1)
                // And incrementally (migration 22's logging transaction, through the same view):
                // the first read takes the row, the next only rows at or above its watermark
                // (e2 again while another transaction in the cluster was open at the first).
                let changes = PostgresRevenueLogChanges(pool: reconciler)
                let first = try await changes.changes(since: nil)
                #expect(first.rows.map(\.dedupKey) == ["e2"] && first.rows.first?.transaction != nil)
                let next = try await changes.changes(since: first.watermark)
                #expect(next.rows.allSatisfy { ($0.transaction ?? 0) >= first.watermark } && next.watermark >= first.watermark)
                let events = try await reconciler.query("SELECT event::text FROM revenue_events WHERE dedup_key = 'e2'")
                let texts: [String] = try events.map { row in try row.decode(String.self) }
                #expect(texts == [#"{"status": "active"}"#])
                // Nothing else: no projection writes, nor what drift and revenue do not need (emails, tokens, payloads), nor the checkout's quotas.
                for sql in Self.nobodyMay + [
                    "SELECT payload FROM billing_events", "SELECT event FROM billing_events", "SELECT app_user_id FROM billing_events",
                    "UPDATE subscriptions SET status = 'cancelled'",
                    "INSERT INTO commands (command_id, kind, provider, subscription_id, requested_at) VALUES ('x', 'k', 'p', 's', now())",
                    "INSERT INTO app_users (app_user_id) VALUES ('x')",
                    "UPDATE checkout_idempotency_keys SET state = 'completed'",
                    "SELECT email_token FROM subscriptions", "SELECT customer_email FROM subscriptions", "SELECT * FROM subscriptions",
                    "SELECT * FROM orders", "SELECT * FROM billing_events", "SELECT * FROM checkout_idempotency_keys",
                    "SELECT * FROM checkout_user_quotas", "DELETE FROM checkout_user_quotas", "TRUNCATE provider_request_ledger",
                    "DROP TABLE provider_request_ledger",
                ] { await Self.expectDenied(reconciler, sql) }
            }
        }
    }

    @Test func theProjectorWritesTheProjectionButNeverDeletesOrRewritesOwners() async throws {
        try await Self.withMigratedDatabase { pool, url in
            try await Self.asMember(of: Roles.projector, database: url) { projector, _ in
                // Its start-up with PROJECTOR_MIGRATE on: the schema is current, no DDL needed.
                #expect(try await ProjectionSchema.migrate(pool: projector).isEmpty)
                // (ProjectorServiceIntegrationTests applies whole batches through this role.)
                try await projector.execute("UPDATE subscriptions SET status = 'cancelled' WHERE subscription_id = '7'")
                try await projector.execute(
                    """
                    INSERT INTO commands (command_id, kind, provider, subscription_id, requested_at) VALUES ('c', 'cancel_requested', 'lemonsqueezy', '7', now())
                    ON CONFLICT (command_id) DO NOTHING
                    """)
                // Its retention job deletes published outbox rows, unpaid checkouts and refresh commands, nothing else.
                await Self.expectRetentionRuns(projector, ProjectorRetention().rules)
                for sql in Self.nobodyMay + [
                    "UPDATE billing_events SET payload = '\\x01'",
                    "DELETE FROM purchase_owners", "DELETE FROM orders", "DELETE FROM payments", "DELETE FROM app_users",
                    "DELETE FROM entitlement_states", "DELETE FROM user_aliases",
                    "UPDATE commands SET kind = 'x'", "SELECT * FROM commands", "SELECT app_user_id FROM commands",
                    "SELECT * FROM checkout_idempotency_keys",
                    "INSERT INTO checkout_idempotency_keys (app_user_id, idempotency_key, request_hash, state, checkout_id) VALUES ('u', 'k', 'h', 'pending', 'c')",
                    "SELECT * FROM checkout_schema_migrations",
                ] { await Self.expectDenied(projector, sql) }
            }
        }
    }

    @Test func theReadOnlyRoleServesStorefrontStatusAndWritesNothing() async throws {
        try await Self.withMigratedDatabase { pool, url in
            try await Self.asMember(of: Roles.readOnly, database: url) { readOnly, loginURL in
                let output = Output()
                try await StatusCommand.run(
                    try CommandLineArguments(["status", "ada@example.com"]), environment: Environment(["DATABASE_URL": loginURL])
                ) { output($0) }
                #expect(output.text.contains("subscription lemonsqueezy:7 status=active"), "\(output.text)")
                // storefront report reads billing_events (through revenue_events): the operators' role is enough.
                let report = Output()
                try await ReportCommand.run(
                    try CommandLineArguments(["report", "--format", "csv"]), environment: Environment(["DATABASE_URL": loginURL])
                ) { report($0) }
                #expect(report.text.hasPrefix("period_start,period_end,provider,currency,"), "\(report.text)")
                // By campaign it reads checkouts, orders, subscriptions and billing_events itself: granted to operators too.
                let campaigns = Output()
                try await ReportCommand.run(
                    try CommandLineArguments(["report", "--campaigns", "--format", "csv"]), environment: Environment(["DATABASE_URL": loginURL])
                ) { campaigns($0) }
                #expect(campaigns.text.hasPrefix("period_start,period_end,ref,checkouts_opened,"), "\(campaigns.text)")
                for sql in Self.nobodyMay + [
                    "UPDATE subscriptions SET status = 'cancelled'", "INSERT INTO app_users (app_user_id) VALUES ('x')",
                    "SELECT * FROM checkout_idempotency_keys",
                ] { await Self.expectDenied(readOnly, sql) }
            }
        }
    }

    /// Roles belong to the cluster: the migrations of several databases of a
    /// new cluster, all at once, race to create them, and every one succeeds.
    @Test func databasesMigratedAtOnceOnANewClusterAllSucceed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("roles-race-\(UUID().uuidString.prefix(8))").path
        try await ScriptRunner.runScript("pg.sh", ["start", directory])
        func stop() async {
            try? await ScriptRunner.runScript("pg.sh", ["stop", directory])
            try? FileManager.default.removeItem(atPath: directory)
        }
        do {
            let server = try TestEnvironment.setting("DATABASE_URL", inEnvFile: directory + "/pg.env")
            let admin = PostgresPool(configuration: try PostgresConfiguration(url: server), options: .init(maximumConnections: 1))
            let names = (1...6).map { "race_\($0)" }
            for name in names { try await admin.execute("CREATE DATABASE \(identifier: name)") }
            let logger = Logger(service: "tests", minimumLevel: .critical)
            let applied = try await withThrowingTaskGroup(of: MigrateCommand.Applied.self) { group in
                for name in names {
                    var components = try #require(URLComponents(string: server))
                    components.path = "/" + name
                    let url = try #require(components.string)
                    group.addTask { try await MigrateCommand.run(environment: Environment(["DATABASE_URL": url]), logger: logger) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(applied.count == names.count)
            #expect(
                applied.allSatisfy {
                    $0.projection == ProjectionSchema.migrations.map(\.version) && $0.checkout == CheckoutSchema.migrations.map(\.version)
                        && $0.webhookSender == WebhookSenderSchema.migrations.map(\.version)
                })
            let roles = try await admin.query("SELECT rolname FROM pg_roles WHERE rolname LIKE 'storefront\\_%' ORDER BY rolname").map {
                try $0.decode(String.self)
            }
            #expect(roles == (Roles.all + [WebhookSenderSchema.role, AdminDatabase.role]).sorted())
            await admin.close()
        } catch {
            await stop()
            throw error
        }
        await stop()
    }
}
