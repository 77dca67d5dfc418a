import Postgres
import ProjectorService
import Testing

/// The projector records the recurring price a payload states on the logged
/// event (projection migration 8), for `storefront report`; payloads that
/// state none (Lemon Squeezy's, Paystack invoices) leave the columns NULL.
@Suite struct RecurringPriceLogTests {
    @Test func paystackPlansFillThePriceColumnsAndOthersLeaveThemEmpty() async throws {
        try await Support.withDatabase { pool in
            let records = try ProjectorApplyTests.allRecords()
            let outcome = try await Support.projector(pool).apply(records)
            #expect(outcome.deadLettered == 0)

            let rows = try await pool.query(
                """
                SELECT event_name, price_amount, price_currency, interval_unit, interval_count FROM billing_events
                WHERE provider = 'paystack' AND event_name IN ('subscription.create', 'subscription.disable') ORDER BY event_name
                """)
            let decoded = try rows.map { try $0.decode((String, Int64?, String?, String?, Int32?).self) }
            #expect(decoded.count == 2)
            for (name, amount, currency, unit, count) in decoded {
                // The plan's ₦500.00 a month, also on the disable whose own amount is 300000.
                #expect(amount == 50000, "\(name)")
                #expect(currency == "NGN")
                #expect(unit == "month")
                #expect(count == 1)
            }
            let unpriced = try await Support.count(
                pool, "SELECT count(*) FROM billing_events WHERE provider = 'lemonsqueezy' AND price_amount IS NULL AND interval_unit IS NULL")
            #expect(unpriced == ProjectorApplyTests.lsSubscription.count)
        }
    }
}
