import Foundation
import Postgres
import ServiceSettings
import ProjectorService
import Retention
import Telemetry
import Testing

/// The projector's retention job against real PostgreSQL: published outbox
/// rows, checkouts nothing was bought through and `refresh_requested`
/// commands past their retention go, in batches; everything a purchase,
/// an owner or the relay still needs stays, however old.
@Suite struct ProjectorRetentionTests {
    static let schedule = RetentionSchedule(interval: .seconds(3600), batchSize: 2, batchPause: .zero)

    static func job(_ pool: PostgresPool, _ retention: ProjectorRetention = ProjectorRetention()) -> RetentionJob {
        RetentionJob(
            pool: pool, rules: retention.rules, schedule: schedule, registry: MetricsRegistry(),
            logger: Logger(service: "retention-tests", minimumLevel: .critical))
    }

    static func names(_ pool: PostgresPool, _ query: PostgresQuery) async throws -> [String] {
        let names: [String] = try await pool.query(query).map { row in try row.decode(String.self) }
        return names.sorted()
    }

    static func checkout(_ pool: PostgresPool, _ id: String, user: String?, daysAgo: Int, completed: Bool = false) async throws {
        try await pool.execute(
            """
            INSERT INTO checkouts (checkout_id, provider, app_user_id, email, variant_id, url, created_at, expires_at, completed_at)
            VALUES (\(id), 'lemonsqueezy', \(user), 'ada@example.com', '2', 'https://x', now() - \(Double(daysAgo)) * interval '1 day',
                now() - \(Double(daysAgo)) * interval '1 day' + interval '1 hour',
                CASE WHEN \(completed) THEN now() - \(Double(daysAgo)) * interval '1 day' + interval '5 minutes' END)
            """)
    }

    static func command(_ pool: PostgresPool, _ id: String, kind: String, daysAgo: Int) async throws {
        try await pool.execute(
            """
            INSERT INTO commands (command_id, kind, provider, subscription_id, app_user_id, requested_at, recorded_at)
            VALUES (\(id), \(kind), 'lemonsqueezy', '7', 'user-1', now(), now() - \(Double(daysAgo)) * interval '1 day')
            """)
    }

    @Test func theJobDeletesExactlyTheRowsPastTheirRetentionInBatches() async throws {
        try await Support.withDatabase { pool in
            // Outbox: published 8 days ago (gone), 6 days ago (kept), and a month-old row the relay has not published yet (kept).
            for i in 1...5 {
                try await pool.execute(
                    """
                    INSERT INTO entitlement_outbox (event_id, app_user_id, event_type, record, created_at, published_at)
                    VALUES (\("old-\(i)"), 'user-1', 'entitlement.granted', '{}', now() - interval '8 days', now() - interval '8 days')
                    """)
            }
            try await pool.execute(
                """
                INSERT INTO entitlement_outbox (event_id, app_user_id, event_type, record, created_at, published_at) VALUES
                    ('new-published', 'user-1', 'entitlement.granted', '{}', now() - interval '6 days', now() - interval '6 days'),
                    ('new-unpublished', 'user-1', 'entitlement.granted', '{}', now() - interval '30 days', NULL)
                """)

            // Checkouts 500 days old and never paid (one anonymous) go; one inside the 400 days stays, and so do old ones
            // that a purchase completed, that a logged event names, or that an owner was matched to.
            for i in 1...4 { try await Self.checkout(pool, "old-\(i)", user: "user-1", daysAgo: 500) }
            try await Self.checkout(pool, "old-anonymous", user: nil, daysAgo: 500)
            try await Self.checkout(pool, "new-recent", user: "user-1", daysAgo: 300)
            try await Self.checkout(pool, "new-completed", user: "user-1", daysAgo: 500, completed: true)
            try await Self.checkout(pool, "new-named", user: nil, daysAgo: 500)
            try await Self.checkout(pool, "new-matched", user: "user-2", daysAgo: 500)
            try await pool.execute(
                """
                INSERT INTO billing_events (dedup_key, provider, event_name, kind, entity_key, checkout_id, received_at, source_partition,
                    source_offset, event, payload)
                VALUES ('e1', 'lemonsqueezy', 'order_created', 'orderCreated', 'lemonsqueezy:1', 'new-named', now() - interval '500 days', 0, 0,
                    '{}', '\\x00')
                """)
            try await pool.execute(
                """
                INSERT INTO purchase_owners (provider, purchase_type, purchase_id, app_user_id, source, evidence)
                VALUES ('lemonsqueezy', 'subscription', '9', 'user-2', 'checkout', 'checkout:new-matched')
                """)

            // Commands: refresh requests past 30 days go; a newer one, and every other kind however old, stay.
            for i in 1...5 { try await Self.command(pool, "old-\(i)", kind: "refresh_requested", daysAgo: 31) }
            try await Self.command(pool, "new-refresh", kind: "refresh_requested", daysAgo: 29)
            try await Self.command(pool, "new-cancel", kind: "cancel_requested", daysAgo: 1000)
            try await Self.command(pool, "new-claim", kind: "claim_by_email", daysAgo: 1000)

            let outcomes = await Self.job(pool).runOnce()
            let fiveInThreeBatches = RetentionJob.Outcome(deleted: 5, batches: 3)
            #expect(outcomes["entitlement_outbox"] == fiveInThreeBatches)
            #expect(outcomes["checkouts.unpaid"] == fiveInThreeBatches)
            #expect(outcomes["commands.refresh_requested"] == fiveInThreeBatches)
            #expect(try await Self.names(pool, "SELECT event_id FROM entitlement_outbox") == ["new-published", "new-unpublished"])
            #expect(try await Self.names(pool, "SELECT checkout_id FROM checkouts") == ["new-completed", "new-matched", "new-named", "new-recent"])
            #expect(try await Self.names(pool, "SELECT command_id FROM commands") == ["new-cancel", "new-claim", "new-refresh"])
        }
    }

    @Test func theDefaultsAndTheirFloorsAreReadFromTheEnvironment() throws {
        var reader = ConfigReader(Environment([:]))
        let defaults = ProjectorRetention.fromEnvironment(&reader)
        try reader.finish()
        #expect(defaults.publishedOutbox == .keep(.seconds(7 * 86_400)))
        #expect(defaults.unpaidCheckouts == .keep(.seconds(400 * 86_400)))
        #expect(defaults.refreshCommands == .keep(.seconds(30 * 86_400)))
        // A checkout must outlive the topics' replay window, or a replayed purchase would miss it.
        var short = ConfigReader(Environment(["PROJECTOR_RETENTION_UNPAID_CHECKOUTS": "7d"]))
        _ = ProjectorRetention.fromEnvironment(&short)
        #expect(throws: ConfigurationError.self) { try short.finish() }
        var forever = ConfigReader(Environment(["PROJECTOR_RETENTION_UNPAID_CHECKOUTS": "0"]))
        #expect(ProjectorRetention.fromEnvironment(&forever).unpaidCheckouts == .forever)
    }
}
