import Foundation
import Postgres
import Retention
import Telemetry
import Testing
@testable import CheckoutService

/// The checkout's retention job against real PostgreSQL: each table filled
/// with rows just past and just inside its retention, the job run in batches
/// of two, and exactly the old rows gone; what is never pruned (redeemed
/// links, merges) stays however old it is.
@Suite struct CheckoutRetentionTests {
    static let logger = Logger(service: "retention-tests", minimumLevel: .critical)
    static let schedule = RetentionSchedule(interval: .seconds(3600), batchSize: 2, batchPause: .zero)

    static func job(
        _ pool: PostgresPool, _ retention: CheckoutRetention = CheckoutRetention(), registry: MetricsRegistry = MetricsRegistry()
    )
        -> RetentionJob
    {
        RetentionJob(
            pool: pool, rules: retention.rules(idempotencyTTL: .seconds(86_400)), schedule: schedule, registry: registry, logger: logger)
    }

    static func names(_ pool: PostgresPool, _ query: PostgresQuery) async throws -> [String] {
        let names: [String] = try await pool.query(query).map { row in try row.decode(String.self) }
        return names.sorted()
    }

    /// Five rows past each rule's retention (`old-*`) and some inside it (`new-*`).
    static func fill(_ pool: PostgresPool) async throws {
        for i in 1...5 {
            try await pool.execute(
                """
                INSERT INTO checkout_idempotency_keys (app_user_id, idempotency_key, request_hash, state, checkout_id, created_at)
                VALUES ('u', \("old-\(i)"), 'h', 'completed', 'c', now() - interval '25 hours')
                """)
            // Minute windows that ended two hours ago.
            try await pool.execute(
                """
                INSERT INTO checkout_user_quotas (app_user_id, action, window_seconds, window_start, used)
                VALUES (\("old-\(i)"), 'create', 60, now() - interval '2 hours', 1)
                """)
            try await pool.execute(
                """
                INSERT INTO provider_request_ledger (provider, window_start, used)
                VALUES ('paystack', now() - interval '2 hours' - make_interval(secs => \(i * 10)), 1)
                """)
            try await pool.execute(
                """
                INSERT INTO checkout_redemptions (redemption_id, token_hash, provider, purchase_type, purchase_id, via, created_at, expires_at)
                VALUES (gen_random_uuid(), sha256(\("old-\(i)")::bytea), 'paystack', 'order', \("old-\(i)"), 'resend',
                    now() - interval '3 days', now() - interval '2 days')
                """)
        }
        try await pool.execute(
            """
            INSERT INTO checkout_idempotency_keys (app_user_id, idempotency_key, request_hash, state, checkout_id, created_at)
            VALUES ('u', 'new-1', 'h', 'completed', 'c', now() - interval '23 hours'), ('u', 'new-2', 'h', 'pending', 'c', now())
            """)
        // An hour-long window that started 90 minutes ago ended only 30 minutes ago: kept.
        try await pool.execute(
            """
            INSERT INTO checkout_user_quotas (app_user_id, action, window_seconds, window_start, used) VALUES
                ('new-1', 'create', 3600, now() - interval '90 minutes', 1), ('new-2', 'create', 60, now(), 1)
            """)
        try await pool.execute(
            "INSERT INTO provider_request_ledger (provider, window_start, used) VALUES ('paystack', now() - interval '50 minutes', 1)")
        // Expired two days ago but redeemed (the record of who proved what), expired an hour ago, and live: all kept.
        try await pool.execute(
            """
            INSERT INTO checkout_redemptions (redemption_id, token_hash, provider, purchase_type, purchase_id, via, created_at, expires_at,
                redeemed_by, redeemed_at) VALUES
                (gen_random_uuid(), sha256('new-1'), 'paystack', 'order', 'new-1', 'resend', now() - interval '3 days', now() - interval '2 days',
                    'user-a', now() - interval '3 days'),
                (gen_random_uuid(), sha256('new-2'), 'paystack', 'order', 'new-2', 'resend', now() - interval '2 hours', now() - interval '1 hour',
                    NULL, NULL),
                (gen_random_uuid(), sha256('new-3'), 'paystack', 'order', 'new-3', 'resend', now(), now() + interval '1 hour', NULL, NULL)
            """)
        try await pool.execute(
            "INSERT INTO checkout_user_merges (anonymous_id, app_user_id, merged_at) VALUES ('anon_old', 'user-a', now() - interval '3 years')")
        // External purchase tokens: one ended 31 days ago (pruned after the 30 days kept), one 29 days ago and one running (kept).
        try await pool.execute(
            """
            INSERT INTO checkout_external_purchase_tokens (external_purchase_id, owner, keep_until) VALUES
                ('epid-old', 'user-a', now() - interval '31 days'), ('epid-recent', 'user-a', now() - interval '29 days'),
                ('epid-live', 'user-b', now() + interval '1 day')
            """)
    }

    @Test func theJobDeletesExactlyTheRowsPastTheirRetentionInBatches() async throws {
        try await TestDatabase.with { pool in
            try await Self.fill(pool)
            let registry = MetricsRegistry()
            let outcomes = await Self.job(pool, registry: registry).runOnce()
            let fiveInThreeBatches = RetentionJob.Outcome(deleted: 5, batches: 3)
            #expect(outcomes["checkout_idempotency_keys"] == fiveInThreeBatches)
            #expect(outcomes["checkout_user_quotas"] == fiveInThreeBatches)
            #expect(outcomes["provider_request_ledger"] == fiveInThreeBatches)
            #expect(outcomes["checkout_redemptions.expired"] == fiveInThreeBatches)
            #expect(outcomes["checkout_external_purchase_tokens"] == RetentionJob.Outcome(deleted: 1, batches: 1))
            #expect(
                try await Self.names(pool, "SELECT external_purchase_id FROM checkout_external_purchase_tokens") == ["epid-live", "epid-recent"])

            #expect(try await Self.names(pool, "SELECT idempotency_key FROM checkout_idempotency_keys") == ["new-1", "new-2"])
            #expect(try await Self.names(pool, "SELECT app_user_id FROM checkout_user_quotas") == ["new-1", "new-2"])
            #expect(try await Self.names(pool, "SELECT to_char(window_start, 'HH24:MI') FROM provider_request_ledger").count == 1)
            #expect(try await Self.names(pool, "SELECT purchase_id FROM checkout_redemptions") == ["new-1", "new-2", "new-3"])
            #expect(try await Self.names(pool, "SELECT anonymous_id FROM checkout_user_merges") == ["anon_old"], "merges are never pruned")

            let metrics = registry.renderPrometheus()
            #expect(metrics.contains(#"retention_rows_deleted_total{table="checkout_idempotency_keys"} 5"#), "\(metrics)")
            #expect(metrics.contains(#"retention_failures_total{table="checkout_user_quotas"} 0"#))

            let again = await Self.job(pool).runOnce()
            #expect(again.values.allSatisfy { $0 == RetentionJob.Outcome(deleted: 0, batches: 1) }, "a second run finds nothing: \(again)")
        }
    }

    @Test func zeroKeepsATableForever() async throws {
        try await TestDatabase.with { pool in
            try await Self.fill(pool)
            var retention = CheckoutRetention()
            retention.quotaWindows = .forever
            retention.expiredRedemptions = .forever
            retention.externalPurchaseTokens = .forever
            let outcomes = await Self.job(pool, retention).runOnce()
            #expect(outcomes.keys.sorted() == ["checkout_idempotency_keys", "provider_request_ledger"])
            #expect(try await Self.names(pool, "SELECT app_user_id FROM checkout_user_quotas").count == 7)
            #expect(try await Self.names(pool, "SELECT purchase_id FROM checkout_redemptions").count == 8)
        }
    }

    /// Replicas run the same job at once: between them every old row goes,
    /// once, and neither fails.
    @Test func replicasRunningAtOnceDeleteEachRowOnce() async throws {
        try await TestDatabase.with { pool in
            for i in 1...40 {
                try await pool.execute(
                    """
                    INSERT INTO checkout_idempotency_keys (app_user_id, idempotency_key, request_hash, state, checkout_id, created_at)
                    VALUES ('u', \("old-\(i)"), 'h', 'completed', 'c', now() - interval '25 hours')
                    """)
            }
            let jobs = (0..<3).map { _ in Self.job(pool) }
            let outcomes = await withTaskGroup(of: [String: RetentionJob.Outcome].self) { group in
                for job in jobs { group.addTask { await job.runOnce() } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            let keys = outcomes.compactMap { $0["checkout_idempotency_keys"] }
            #expect(keys.count == 3, "no replica failed: \(outcomes)")
            #expect(keys.map(\.deleted).reduce(0, +) == 40)
            #expect(try await Self.names(pool, "SELECT idempotency_key FROM checkout_idempotency_keys").isEmpty)
        }
    }
}
