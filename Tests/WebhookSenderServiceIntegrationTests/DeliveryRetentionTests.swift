import Foundation
import Postgres
import Retention
import Telemetry
import TestSupport
import Testing
import WebhookSenderService

/// The webhook sender's retention job against real PostgreSQL: delivered
/// rows past 35 days and dead ones whose last attempt is past 90 days go, in
/// batches; the queue (pending rows, however old) and newer rows stay.
@Suite struct DeliveryRetentionTests {
    static func delivery(_ pool: PostgresPool, _ id: String, state: String, daysAgo: Int) async throws {
        let at = Date().addingTimeInterval(-Double(daysAgo) * 86_400)
        try await pool.execute(
            """
            INSERT INTO webhook_deliveries (endpoint_id, event_id, app_user_id, event_type, body, state, next_attempt_at, created_at,
                delivered_at)
            VALUES ('ep_retention', \(id), 'user-1', 'entitlement.granted', '{}', \(state), \(at), \(at),
                CASE WHEN \(state) = 'delivered' THEN \(at)::timestamptz END)
            """)
    }

    @Test func theJobDeletesDeliveredAndDeadRowsPastTheirRetentionInBatches() async throws {
        try await FreshDatabase.with(prefix: "test_webhook_sender") { pool, _ in
            try await WebhookSenderSchema.migrate(pool: pool)
            try await EndpointStore(pool: pool).add(
                WebhookEndpoint(id: "ep_retention", url: "https://example.com/hook", secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", eventTypes: [])
            )
            for i in 1...5 {
                try await Self.delivery(pool, "old-delivered-\(i)", state: "delivered", daysAgo: 36)
                try await Self.delivery(pool, "old-dead-\(i)", state: "dead", daysAgo: 91)
            }
            try await Self.delivery(pool, "new-delivered", state: "delivered", daysAgo: 34)
            try await Self.delivery(pool, "new-dead", state: "dead", daysAgo: 89)
            try await Self.delivery(pool, "new-pending", state: "pending", daysAgo: 400)

            let job = RetentionJob(
                pool: pool, rules: DeliveryRetention().rules, schedule: RetentionSchedule(interval: .seconds(3600), batchSize: 2, batchPause: .zero),
                registry: MetricsRegistry(), logger: Logger(service: "retention-tests", minimumLevel: .critical))
            let outcomes = await job.runOnce()
            #expect(outcomes["webhook_deliveries.delivered"] == RetentionJob.Outcome(deleted: 5, batches: 3))
            #expect(outcomes["webhook_deliveries.dead"] == RetentionJob.Outcome(deleted: 5, batches: 3))
            let left: [String] = try await pool.query("SELECT event_id FROM webhook_deliveries").map { row in try row.decode(String.self) }
            #expect(left.sorted() == ["new-dead", "new-delivered", "new-pending"])
        }
    }
}
