import CryptoPrimitives
import Foundation
import Kafka
import BillingModel
import Postgres
import ProjectionStore
import ProjectorService
import Synchronization
import Telemetry
import TestSupport
import Testing
import Webhooks
import Entitlements

/// Servers, fresh databases and record builders for the projector suites.
enum Support {
    static func brokers() throws -> [String] {
        try TestEnvironment.kafkaBrokers()
    }

    static func unique(_ prefix: String) -> String { "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())" }

    /// Runs `body` on a new database on the DATABASE_URL server (suites run in
    /// parallel), migrated unless `migrate` is false, and drops it afterwards.
    static func withDatabase<T>(migrate: Bool = true, _ body: (PostgresPool) async throws -> T) async throws -> T {
        try await withDatabaseAndURL(migrate: migrate) { pool, _ in try await body(pool) }
    }

    /// Like ``withDatabase(migrate:_:)``, also passing the database's URL.
    static func withDatabaseAndURL<T>(migrate: Bool = true, _ body: (PostgresPool, String) async throws -> T) async throws -> T {
        try await FreshDatabase.with(prefix: "test_projector") { pool, url in
            if migrate { try await ProjectionSchema.migrate(pool: pool) }
            return try await body(pool, url)
        }
    }

    static let fixtures = Fixture.directory

    /// The app user and checkout of the Lemon Squeezy `*.synthetic.json` fixtures' custom data.
    static let fixtureOwner = (user: "user-7f3a", checkout: "2d9c6a40-5b1e-4f7a-9c3d-8e2f1a0b4c6d")

    /// A fixture body with textual replacements (to give it unique ids or link
    /// it to other fixtures); with `owner`, last, its custom data moved to that
    /// user and checkout, with a valid proof for them (``TestOwnership``).
    static func body(_ name: String, replacing: [String: String] = [:], owner: (user: String, checkout: String)? = nil) throws -> [UInt8] {
        var text = try String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8)
        for (from, to) in replacing { text = text.replacingOccurrences(of: from, with: to) }
        if let owner {
            let old = fixtureOwner
            for (from, to) in TestOwnership.replacing(user: old.user, checkout: old.checkout, with: owner.user, owner.checkout) {
                text = text.replacingOccurrences(of: from, with: to)
            }
        }
        return Array(text.utf8)
    }

    /// The envelope the webhook receiver would publish for `body`.
    static func envelope(_ provider: Provider, _ body: [UInt8], receivedAt: Date = Date(timeIntervalSince1970: 1_800_000_000)) -> WebhookEnvelope {
        ProviderWebhooks.read(provider, body: body, receivedAt: receivedAt).envelope
    }

    static func record(_ topic: String, key: String, value: [UInt8], offset: Int64 = 0, partition: Int32 = 0) -> KafkaConsumerRecord {
        KafkaConsumerRecord(
            topic: topic, partition: partition, offset: offset, key: Array(key.utf8), value: value, headers: [], timestampMilliseconds: nil)
    }

    static func webhookRecord(_ provider: Provider, _ body: [UInt8], offset: Int64 = 0) throws -> KafkaConsumerRecord {
        record(
            Topics.webhooks, key: ProviderWebhooks.read(provider, body: body, receivedAt: .distantPast).topicKey,
            value: RecordCoding.encode(envelope(provider, body)),
            offset: offset)
    }

    /// The projector as the service runs it, its entitlement outbox included.
    static func projector(_ pool: PostgresPool, sink: any DeadLetterSink = RecordingSink(), metrics: MetricsRegistry = MetricsRegistry()) -> Projector
    {
        Projector(
            writer: ProjectionWriter(
                pool: pool, outbox: EntitlementOutbox(resolver: EntitlementResolver(policy: AccessPolicy(testDeployment: true)))),
            deadLetters: sink, metrics: ProjectorMetrics(registry: metrics), ownership: TestOwnership.proof,
            consumerName: "projector-tests", logger: Logger(service: "projector-tests", minimumLevel: .error))
    }

    /// Every projection table as sorted JSON rows, without the columns that
    /// record when, by which transaction or from where a row was written (those differ between runs;
    /// an owner's evidence is the first of its equivalent events to arrive).
    static func dump(_ pool: PostgresPool) async throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        for table in [
            "app_users", "provider_customers", "billing_events", "subscriptions", "orders", "payments", "checkouts", "commands",
            "purchase_owners",
        ] {
            let rows = try await pool.query(
                """
                SELECT (to_jsonb(t) - 'created_at' - 'updated_at' - 'applied_at' - 'projected_at' - 'recorded_at'
                        - 'source_partition' - 'source_offset' - 'logged_xid' - 'first_seen_at' - 'owned_at' - 'evidence')::text FROM \(identifier: table) AS t ORDER BY 1
                """)
            result[table] = try rows.map { try $0.decode(column: 0, as: String.self) }
        }
        return result
    }

    /// The one number `query` (a `SELECT count(*) …`) answers.
    static func count(_ pool: PostgresPool, _ query: PostgresQuery) async throws -> Int {
        try await pool.query(query)[0].decode(column: 0, as: Int.self)
    }
}

/// Keeps dead letters in memory.
final class RecordingSink: DeadLetterSink {
    private let letters = Mutex<[DeadLetterRecord]>([])
    var received: [DeadLetterRecord] { letters.withLock { $0 } }
    func send(_ letters: [DeadLetterRecord]) async throws { self.letters.withLock { $0 += letters } }
}
