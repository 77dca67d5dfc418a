import CheckoutService
import Foundation
import Synchronization
import Postgres
import ProjectionStore
import ProjectorService
import Retention
import Telemetry
import Testing
import WebhookSenderService

/// Every table that grows with traffic, under a month of daily traffic with
/// each owning service's retention job run daily: the pruned tables level
/// off at their retention's worth of rows and stay there, while what is the
/// business record (redeemed links, paid checkouts, commands other than
/// refreshes) keeps every row. docs/retention.md lists the tables.
extension BoundedGrowthTests {
    static let perDay = 3
    static let days = 30

    /// One day's traffic at `at`: `perDay` prunable rows for every table, and one row of each kind that is kept.
    static func traffic(_ pool: PostgresPool, day: Int, at: Date) async throws {
        for i in 0..<perDay {
            let id = "d\(day)-\(i)"
            let statements: [PostgresQuery] = [
                """
                INSERT INTO checkout_idempotency_keys (app_user_id, idempotency_key, request_hash, state, checkout_id, created_at)
                VALUES ('u', \(id), 'h', 'completed', \(id), \(at))
                """,
                """
                INSERT INTO checkout_user_quotas (app_user_id, action, window_seconds, window_start, used)
                VALUES (\(id), 'create', 60, \(at.addingTimeInterval(-60)), 1)
                """,
                "INSERT INTO provider_request_ledger (provider, window_start, used) VALUES ('paystack', \(at.addingTimeInterval(Double(i) * 10)), 1)",
                """
                INSERT INTO checkout_redemptions (redemption_id, token_hash, provider, purchase_type, purchase_id, via, created_at, expires_at)
                VALUES (gen_random_uuid(), sha256(\(id)::bytea), 'paystack', 'order', \(id), 'resend', \(at.addingTimeInterval(-3600)), \(at))
                """,
                """
                INSERT INTO entitlement_outbox (event_id, app_user_id, event_type, record, created_at, published_at)
                VALUES (\(id), 'u', 'entitlement.granted', '{}', \(at), \(at))
                """,
                """
                INSERT INTO checkouts (checkout_id, provider, app_user_id, email, variant_id, url, created_at, expires_at)
                VALUES (\(id), 'lemonsqueezy', 'u', 'ada@example.com', '2', 'https://x', \(at), \(at.addingTimeInterval(3600)))
                """,
                """
                INSERT INTO commands (command_id, kind, provider, subscription_id, app_user_id, requested_at, recorded_at)
                VALUES (\(id), 'refresh_requested', 'lemonsqueezy', '7', 'u', \(at), \(at))
                """,
                """
                INSERT INTO webhook_deliveries (endpoint_id, event_id, app_user_id, event_type, body, state, next_attempt_at, created_at, delivered_at)
                VALUES ('ep_growth', \(id), 'u', 'entitlement.granted', '{}', 'delivered', \(at), \(at), \(at)),
                       ('ep_growth', \(id + "-dead"), 'u', 'entitlement.granted', '{}', 'dead', \(at), \(at), NULL)
                """,
            ]
            for statement in statements { try await pool.execute(statement) }
        }
        let kept = "d\(day)-kept"
        let record: [PostgresQuery] = [
            """
            INSERT INTO checkout_redemptions (redemption_id, token_hash, provider, purchase_type, purchase_id, via, created_at, expires_at,
                redeemed_by, redeemed_at)
            VALUES (gen_random_uuid(), sha256(\(kept)::bytea), 'paystack', 'order', \(kept), 'resend', \(at), \(at), 'u', \(at))
            """,
            """
            INSERT INTO checkouts (checkout_id, provider, app_user_id, email, variant_id, url, created_at, expires_at, completed_at)
            VALUES (\(kept), 'lemonsqueezy', 'u', 'ada@example.com', '2', 'https://x', \(at), \(at.addingTimeInterval(3600)), \(at))
            """,
            """
            INSERT INTO commands (command_id, kind, provider, subscription_id, app_user_id, requested_at, recorded_at)
            VALUES (\(kept), 'cancel_requested', 'lemonsqueezy', '7', 'u', \(at), \(at))
            """,
        ]
        for statement in record { try await pool.execute(statement) }
    }

    /// Each pruned table's rows; `(keep + 1) × perDay` once it levelled off
    /// (a row exactly at the cutoff is kept).
    static let pruned: [(name: String, keepDays: Int, count: PostgresQuery)] = [
        ("checkout_idempotency_keys", 1, "SELECT count(*) FROM checkout_idempotency_keys"),
        ("checkout_user_quotas", 1, "SELECT count(*) FROM checkout_user_quotas"),
        ("provider_request_ledger", 1, "SELECT count(*) FROM provider_request_ledger"),
        ("checkout_redemptions (unredeemed)", 1, "SELECT count(*) FROM checkout_redemptions WHERE redeemed_by IS NULL"),
        ("entitlement_outbox", 2, "SELECT count(*) FROM entitlement_outbox"),
        ("checkouts (unpaid)", 3, "SELECT count(*) FROM checkouts WHERE completed_at IS NULL"),
        ("commands (refresh_requested)", 2, "SELECT count(*) FROM commands WHERE kind = 'refresh_requested'"),
        ("webhook_deliveries (delivered)", 2, "SELECT count(*) FROM webhook_deliveries WHERE state = 'delivered'"),
        ("webhook_deliveries (dead)", 3, "SELECT count(*) FROM webhook_deliveries WHERE state = 'dead'"),
    ]

    @Test func aMonthOfTrafficLeavesEveryGrowingTableFlat() async throws {
        try await Support.withDatabase { pool in
            try await CheckoutSchema.migrate(pool: pool)
            try await WebhookSenderSchema.migrate(pool: pool)
            try await EndpointStore(pool: pool).add(
                WebhookEndpoint(id: "ep_growth", url: "https://example.com/hook", secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", eventTypes: []))
            let day = 86_400.0
            var checkout = CheckoutRetention()
            checkout.quotaWindows = .keep(.seconds(day))
            checkout.ledgerWindows = .keep(.seconds(day))
            checkout.expiredRedemptions = .keep(.seconds(day))
            var projector = ProjectorRetention()
            projector.publishedOutbox = .keep(.seconds(2 * day))
            projector.unpaidCheckouts = .keep(.seconds(3 * day))
            projector.refreshCommands = .keep(.seconds(2 * day))
            var sender = DeliveryRetention()
            sender.delivered = .keep(.seconds(2 * day))
            sender.dead = .keep(.seconds(3 * day))
            let rules =
                checkout.rules(idempotencyTTL: .seconds(day)) + projector.rules + sender.rules
            // Whole seconds, so every day's time and every cutoff are exact.
            let start = Date(timeIntervalSinceReferenceDate: (Date.timeIntervalSinceReferenceDate - Double(Self.days + 1) * day).rounded(.down))
            let clock = DayClock(start)
            let job = RetentionJob(
                pool: pool, rules: rules, schedule: RetentionSchedule(batchSize: 2, batchPause: .zero), registry: MetricsRegistry(),
                logger: Logger(service: "tests", minimumLevel: .critical), now: { clock.now })

            var history: [[Int]] = []
            for d in 0..<Self.days {
                let at = start.addingTimeInterval(Double(d) * day)
                clock.now = at
                try await Self.traffic(pool, day: d, at: at)
                let outcomes = await job.runOnce()
                #expect(outcomes.count == rules.count, "every rule ran on day \(d)")
                var counts: [Int] = []
                for table in Self.pruned { counts.append(try await Support.count(pool, table.count)) }
                history.append(counts)
            }
            for (index, table) in Self.pruned.enumerated() {
                let levelled = (table.keepDays + 1) * Self.perDay
                let last = history.suffix(Self.days - 5).map { $0[index] }
                #expect(last.allSatisfy { $0 == levelled }, "\(table.name) stays at \(levelled) rows: \(history.map { $0[index] })")
            }
            // The business record keeps every day's row.
            #expect(try await Support.count(pool, "SELECT count(*) FROM checkout_redemptions WHERE redeemed_by IS NOT NULL") == Self.days)
            #expect(try await Support.count(pool, "SELECT count(*) FROM checkouts WHERE completed_at IS NOT NULL") == Self.days)
            #expect(try await Support.count(pool, "SELECT count(*) FROM commands WHERE kind = 'cancel_requested'") == Self.days)
        }
    }
}

/// The retention job's clock, moved a day at a time by the test.
final class DayClock: Sendable {
    private let value: Mutex<Date>
    init(_ start: Date) { value = Mutex(start) }
    var now: Date {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
