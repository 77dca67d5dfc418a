import Foundation
import Kafka
import BillingModel
import Postgres
import ProjectorService
import Telemetry
import Testing
import Entitlements

/// A logged event that no longer reads back (another version wrote it, or it
/// was damaged) does not stop its subscription: the fold leaves it out and
/// says so, and later events of that subscription are applied, not
/// dead-lettered one after another.
@Suite struct UnreadableLogTests {
    @Test func aFoldLeavesOutAnUnreadableLoggedEventAndLaterEventsApply() async throws {
        try await Support.withDatabase { pool in
            let metrics = MetricsRegistry()
            let sink = RecordingSink()
            let projector = Support.projector(pool, sink: sink, metrics: metrics)
            let purchase = try ProjectorApplyTests.paystackPurchase()
            let first = try await projector.apply([
                try Support.webhookRecord(.paystack, purchase[0], offset: 0), try Support.webhookRecord(.paystack, purchase[1], offset: 1),
            ])
            #expect(first.applied == 2 && first.deadLettered == 0)

            // The subscription.create event no longer reads back, and the row
            // is gone, so the next event folds the subscription from the log.
            let damaged = try await Support.count(
                pool,
                """
                WITH d AS (UPDATE billing_events SET event = '{"written_by":"a future version"}'::jsonb
                           WHERE provider = 'paystack' AND kind = 'subscriptionCreated' RETURNING 1)
                SELECT count(*) FROM d
                """)
            #expect(damaged == 1)
            _ = try await pool.query("DELETE FROM subscriptions WHERE provider = 'paystack'")

            let later = try await projector.apply([try Support.webhookRecord(.paystack, purchase[2], offset: 2)])
            #expect(later.applied == 1)
            #expect(later.deadLettered == 0 && sink.received.isEmpty, "the later event was applied, not dead-lettered")
            let rows = try await pool.query(
                "SELECT status FROM subscriptions WHERE provider = 'paystack' AND subscription_id = 'SUB_vsyqdmlzble3uii'")
            #expect(rows.count == 1, "the subscription was folded from what still reads")
            #expect(metrics.renderPrometheus().contains("projector_unreadable_logged_events_total 1"))
        }
    }
}
