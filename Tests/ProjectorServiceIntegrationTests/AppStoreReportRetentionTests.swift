import AppStoreReports
import Foundation
import Postgres
import Retention
import Synchronization
import Telemetry
import Testing
import WebhookSenderService

/// Retention of `app_store_report_lines` (``AppStoreReportRetention``)
/// against PostgreSQL, with the reporter reading the projection's views as
/// it runs: only tokens whose lines are all answered and older than the
/// retention go, and a pruned token's lines are never made or sent again,
/// although its purchase is still in the projection.
@Suite struct AppStoreReportRetentionTests {
    /// Apple, taking everything and counting what it took.
    final class CountingApple: AppStoreReportSending {
        let sent = Mutex<[String]>([])
        func deliver(_ report: ExternalPurchaseReport) async -> AppStoreReportClient.Outcome {
            sent.withLock { $0.append(report.externalPurchaseId) }
            return .accepted
        }
        var tokens: [String] { sent.withLock { $0 } }
    }

    /// A token's one-time purchase, paid `daysAgo`, in the projection.
    static func purchase(_ pool: PostgresPool, token: String, order: String, daysAgo: Double) async throws {
        let at = Date().addingTimeInterval(-daysAgo * 86_400)
        try await pool.execute(
            """
            INSERT INTO checkouts (checkout_id, provider, app_user_id, email, variant_id, url, created_at, is_subscription,
                app_store_storefront, external_purchase_id, external_purchase_token_type)
            VALUES (\("chk-" + order), 'lemonsqueezy', 'user-r', 'r@example.com', 'v', 'https://pay.example.com', \(at), false,
                'NLD', \(token), 'ACQUISITION')
            """)
        try await pool.execute(
            """
            INSERT INTO orders (provider, order_id, status, amount, currency, paid_at, checkout_id)
            VALUES ('lemonsqueezy', \(order), 'paid', 1000, 'EUR', \(at), \("chk-" + order))
            """)
    }

    @Test func aQuietTokenIsPrunedWholeAndNeverReportedAgain() async throws {
        try await Support.withDatabase { pool in
            try await WebhookSenderSchema.migrate(pool: pool)
            try await Self.purchase(pool, token: "TOKEN_OLD", order: "o-1", daysAgo: 600)
            try await Self.purchase(pool, token: "TOKEN_NEW", order: "o-2", daysAgo: 10)
            try await Self.purchase(pool, token: "TOKEN_WAITING", order: "o-3", daysAgo: 600)
            let apple = CountingApple()
            let reporter = AppStoreReporter(
                store: PostgresAppStoreReportStore(pool: pool), sender: apple, configuration: AppStoreReporterConfiguration(),
                metrics: AppStoreReporterMetrics(registry: MetricsRegistry()), logger: Logger(service: "t", minimumLevel: .critical))
            _ = try await reporter.round()
            #expect(apple.tokens.sorted() == ["TOKEN_NEW", "TOKEN_OLD", "TOKEN_WAITING"])

            // As if time passed: the old tokens' lines were answered long ago; one of them has a line waiting again.
            try await pool.execute(
                """
                UPDATE app_store_report_lines SET created_at = now() - interval '600 days', answered_at = now() - interval '599 days'
                WHERE external_purchase_id IN ('TOKEN_OLD', 'TOKEN_WAITING')
                """)
            try await pool.execute(
                """
                INSERT INTO app_store_report_lines (external_purchase_id, line_key, request_identifier, body, created_at)
                VALUES ('TOKEN_WAITING', 'lemonsqueezy:order:o-3:refund', gen_random_uuid(), '{}', now() - interval '600 days')
                """)
            try await pool.execute("UPDATE app_store_report_lines SET next_attempt_at = 'infinity' WHERE state = 'pending'")

            let job = RetentionJob(
                pool: pool, rules: [AppStoreReportRetention.rule(keep: AppStoreReportRetention.defaultPeriod)],
                schedule: RetentionSchedule(interval: .seconds(3600), batchSize: 2, batchPause: .zero), registry: MetricsRegistry(),
                logger: Logger(service: "retention-tests", minimumLevel: .critical))
            #expect(await job.runOnce()["app_store_report_lines"]?.deleted == 1)
            let lines = try await pool.query("SELECT external_purchase_id, line_key FROM app_store_report_lines ORDER BY 1, 2").map {
                try $0.decode((String, String).self)
            }
            #expect(lines.map(\.0) == ["TOKEN_NEW", "TOKEN_WAITING", "TOKEN_WAITING"], "a token with a waiting line keeps all of them")
            let pruned = try await pool.query("SELECT external_purchase_id FROM app_store_report_pruned_tokens").map { try $0.decode(String.self) }
            #expect(pruned == ["TOKEN_OLD"])

            // The projection still shows the purchase; the reporter makes and sends nothing for it.
            let first = try await reporter.round(), second = try await reporter.round()
            #expect(first.planned == 0 && second.planned == 0)
            #expect(apple.tokens.filter { $0 == "TOKEN_OLD" }.count == 1, "sent once, before it was pruned")
            #expect(try await Support.count(pool, "SELECT count(*) FROM app_store_report_lines WHERE external_purchase_id = 'TOKEN_OLD'") == 0)
            // Pruning again finds nothing more.
            #expect(await job.runOnce()["app_store_report_lines"]?.deleted == 0)
        }
    }
}
