import ServiceSettings
import Foundation
import BillingModel
import Postgres
import ProjectionStore
import Entitlements
import ServiceRuntime
import StorefrontCLI
import Telemetry
import TestSupport
import Testing

/// `storefront report` against a hand-computed history, logged straight into
/// `billing_events` of a fresh, migrated database as the projector logs it
/// (the event JSON plus migration 8's price columns).
///
/// Catalog (Lemon Squeezy states no price in its events): variant 101 $10.00
/// a month, 102 $25.00 a month, 103 $120.00 a year. Paystack plans (stated in
/// the events): PLN_m ₦5,000 a month, PLN_y ₦48,000 a year (₦4,000 a month),
/// PLN_w ₦1,200 a week (×52/12 = ₦5,200 a month). Amounts in minor units.
///
/// | sub | before November                 | in November                                         | MRR 1 Nov → 1 Dec | movement            |
/// |-----|---------------------------------|-----------------------------------------------------|-------------------|---------------------|
/// | L1  | 5 Oct active 101 (order OL1)    | 10 Nov → 102; 11 Nov invoice and OL1 refunded $5.00 | 1000 → 2500       | expansion +1500     |
/// | L2  | 8 Oct active 102                | 12 Nov → 101; 25 Nov payment failed, past_due       | 2500 → 1000       | contraction −1500   |
/// | L3  | 20 Oct active 101               | 3 Nov cancelled, ends 20 Nov (no expired event)     | 1000 → 0          | churn −1000 (20 Nov)|
/// | L4  | —                               | 2 Nov on_trial 101; 16 Nov active                   | 0 → 1000          | new +1000           |
/// | L5  | —                               | 5 Nov on_trial 102; 19 Nov expired                  | 0 → 0             | —                   |
/// | L6  | 1 Sep active 101; 1 Oct paused  | 8 Nov unpaused, active                              | 0 → 1000          | reactivation +1000  |
/// | L7  | 1 Oct active, variant 999       | — (not in the catalog: unknown interval, no currency)| not in MRR        | —                   |
/// | O9  | —                               | 2 Nov one-time $15.00 (never MRR); 14 Nov refunded  | —                 | —                   |
/// | P1  | 10 Oct PLN_m                    | 21 Nov dispute of its ₦5,000 charge                 | 500000 → 500000   | —                   |
/// | P2  | —                               | 4 Nov PLN_y                                         | 0 → 400000        | new +400000         |
/// | P3  | 15 Oct PLN_w                    | 9 Nov disabled                                      | 520000 → 0        | churn −520000       |
/// | R   | —                               | 22 Nov refund.processed ₦2,500                      | —                 | —                   |
///
/// November, lemonsqueezy USD: MRR 4500 → 5500 (4500 + 1000 new + 1500 expansion + 1000 reactivation
/// − 1500 contraction − 1000 churn); active 3 → 4 (L1 L2 L3 → L1 L2 L4 L6); new subscriptions 2
/// (L4 L5); churned 1 (L3); trial starts 2, conversions 1; refunds 2 ($5.00 + $15.00 = 2000: L1's
/// first-order refund is the invoice's, announced twice);
/// failed payments 1; in grace 1 (L2). lemonsqueezy "unknown" (L7): active 1 → 1, unknown interval 1.
/// paystack NGN: MRR 1020000 → 900000 (+400000 new − 520000 churn); active 2 → 2; new 1; churned 1;
/// refunds 1 (250000); disputes 1.
@Suite struct RevenueReportFixtureTests {
    let logger = Logger(service: "cli-tests", minimumLevel: .critical)

    /// The log is read through a cursor a page at a time: any page size reads the same log.
    @Test func thePageSizeChangesNothing() async throws {
        try await FreshDatabase.with(prefix: "test_report_pages") { pool, url in
            _ = try await MigrateCommand.run(environment: Environment(["DATABASE_URL": url]), logger: logger)
            try await Self.logHistory(pool)
            let period = ReportPeriod(from: Self.date(11, 1, hour: 0), to: Self.date(12, 1, hour: 0), granularity: .month)
            let whole = try await RevenueLog.read(from: pool, before: Self.date(12, 5))
            #expect(whole.rowsRead > 3)
            for pageRows in [1, 2, 3, whole.rowsRead, whole.rowsRead + 1] {
                let paged = try await RevenueLog.read(from: pool, before: Self.date(12, 5), pageRows: pageRows)
                #expect(paged.rowsRead == whole.rowsRead, "pages of \(pageRows)")
                #expect(paged.subscriptionEvents.mapValues { $0.map(\.dedupKey) } == whole.subscriptionEvents.mapValues { $0.map(\.dedupKey) })
                #expect(paged.moneyEvents.map(\.dedupKey) == whole.moneyEvents.map(\.dedupKey))
                #expect(
                    Set(paged.report(period, prices: Self.catalog, asOf: Self.date(12, 5)))
                        == Set(whole.report(period, prices: Self.catalog, asOf: Self.date(12, 5))))
            }
        }
    }

    @Test func novemberMatchesTheHandComputedFigures() async throws {
        try await FreshDatabase.with(prefix: "test_report") { pool, url in
            _ = try await MigrateCommand.run(environment: Environment(["DATABASE_URL": url]), logger: logger)
            try await Self.logHistory(pool)
            let period = ReportPeriod(from: Self.date(11, 1, hour: 0), to: Self.date(12, 1, hour: 0), granularity: .month)
            let rows = try await ReportCommand.report(period, pool: pool, prices: Self.catalog, asOf: Self.date(12, 5))
            #expect(rows.count == 3)

            let usd = try #require(rows.first { $0.provider == .lemonsqueezy && $0.currency == "USD" })
            #expect(usd.mrrStart == 4500)
            #expect(usd.newMRR == 1000)
            #expect(usd.expansionMRR == 1500)
            #expect(usd.contractionMRR == 1500)
            #expect(usd.churnedMRR == 1000)
            #expect(usd.reactivationMRR == 1000)
            #expect(usd.mrrEnd == 5500)
            #expect(usd.activeSubscribersStart == 3)
            #expect(usd.activeSubscribersEnd == 4)
            #expect(usd.unknownIntervalEnd == 0)
            #expect(usd.trialingEnd == 0)
            #expect(usd.newSubscriptions == 2)
            #expect(usd.churnedSubscriptions == 1)
            #expect(usd.trialStarts == 2)
            #expect(usd.trialConversions == 1)
            #expect(usd.refunds == 2)
            #expect(usd.refundedAmount == 2000)
            #expect(usd.disputes == 0)
            #expect(usd.failedPayments == 1)
            #expect(usd.inGraceEnd == 1)

            let unknown = try #require(rows.first { $0.provider == .lemonsqueezy && $0.currency == "unknown" })
            #expect(unknown.activeSubscribersStart == 1)
            #expect(unknown.activeSubscribersEnd == 1)
            #expect(unknown.unknownIntervalEnd == 1)
            #expect(unknown.mrrStart == 0 && unknown.mrrEnd == 0)

            let ngn = try #require(rows.first { $0.provider == .paystack && $0.currency == "NGN" })
            #expect(ngn.mrrStart == 1_020_000)
            #expect(ngn.newMRR == 400_000)
            #expect(ngn.churnedMRR == 520_000)
            #expect(ngn.expansionMRR == 0 && ngn.contractionMRR == 0 && ngn.reactivationMRR == 0)
            #expect(ngn.mrrEnd == 900_000)
            #expect(ngn.activeSubscribersStart == 2)
            #expect(ngn.activeSubscribersEnd == 2)
            #expect(ngn.newSubscriptions == 1)
            #expect(ngn.churnedSubscriptions == 1)
            #expect(ngn.refunds == 1)
            #expect(ngn.refundedAmount == 250_000)
            #expect(ngn.disputes == 1)
            #expect(ngn.failedPayments == 0)
        }
    }

    /// Cut by day, every day's movements lead from its start to its end, each
    /// day starts where the one before ended, and the month's totals are the same.
    @Test func dailyBucketsAddUpToTheMonth() async throws {
        try await FreshDatabase.with(prefix: "test_report") { pool, url in
            _ = try await MigrateCommand.run(environment: Environment(["DATABASE_URL": url]), logger: logger)
            try await Self.logHistory(pool)
            let period = ReportPeriod(from: Self.date(11, 1, hour: 0), to: Self.date(12, 1, hour: 0), granularity: .day)
            let rows = try await ReportCommand.report(period, pool: pool, prices: Self.catalog, asOf: Self.date(12, 5))
            let usd = rows.filter { $0.provider == .lemonsqueezy && $0.currency == "USD" }
            #expect(usd.count == 30)
            for row in usd { #expect(row.mrrStartPlusMovements == row.mrrEnd) }
            for (day, next) in zip(usd, usd.dropFirst()) { #expect(day.mrrEnd == next.mrrStart) }
            #expect(usd.first?.mrrStart == 4500)
            #expect(usd.last?.mrrEnd == 5500)
            #expect(usd.map(\.churnedMRR).reduce(0, +) == 1000)
            #expect(usd.map(\.refunds).reduce(0, +) == 2)
            // L3's revenue stops on the day its cancellation said it ends.
            #expect(usd.first { $0.churnedMRR > 0 }?.periodStart == Self.date(11, 20, hour: 0))
        }
    }

    /// The command as an operator runs it: CSV, JSON and the chart file.
    @Test func commandWritesCSVJSONAndTheChart() async throws {
        try await FreshDatabase.with(prefix: "test_report") { pool, url in
            let environment = Environment(["DATABASE_URL": url])
            _ = try await MigrateCommand.run(environment: environment, logger: logger)
            try await Self.logHistory(pool)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let catalog = folder.appendingPathComponent("products.json")
            try Data(RecordCoding.encode(Self.catalogAnswer)).write(to: catalog)
            let chart = folder.appendingPathComponent("mrr.svg")
            let common = ["report", "--from", "2026-11-01", "--to", "2026-12-01", "--catalog", catalog.path]

            let csv = Output()
            try await ReportCommand.run(try CommandLineArguments(common + ["--format", "csv"]), environment: environment, now: Self.date(12, 5)) {
                csv($0)
            }
            let lines = csv.text.split(separator: "\n")
            #expect(lines.count == 4)
            #expect(lines.first?.hasPrefix("period_start,period_end,provider,currency,mrr_start,new_mrr,") == true)
            #expect(lines.contains { $0.contains(",paystack,NGN,1020000,400000,0,0,520000,0,900000,") })

            let json = Output()
            try await ReportCommand.run(
                try CommandLineArguments(common + ["--format", "json", "--chart", chart.path]), environment: environment, now: Self.date(12, 5)
            ) { json($0) }
            let decoded = try JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? [String: Any]
            let jsonRows = try #require(decoded?["rows"] as? [[String: Any]])
            let usd = try #require(jsonRows.first { $0["currency"] as? String == "USD" })
            #expect((usd["mrr_end"] as? NSNumber)?.int64Value == 5500)
            #expect((usd["trial_conversions"] as? NSNumber)?.int64Value == 1)
            let svg = try String(contentsOf: chart, encoding: .utf8)
            #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
            #expect(svg.contains("lemonsqueezy USD") && svg.contains("paystack NGN"))
        }
    }

    // MARK: - The history

    static let catalog: PriceBook = PriceBook(catalog: catalogAnswer)

    static let catalogAnswer = ProductListResponse(
        products: [
            product("101", 1000, .month), product("102", 2500, .month), product("103", 12000, .year),
        ])

    static func product(_ variant: String, _ price: Int64, _ unit: BillingInterval.Unit) -> ProductResource {
        let id = CatalogID(provider: .lemonsqueezy, rawID: variant)!
        return ProductResource(
            id: id, variantId: id,
            attributes: ProductAttributes(
                name: "Plan \(variant)", description: "", priceFormatted: "", buyNowURL: "", descriptionText: "", price: price, currency: "USD",
                interval: BillingInterval(unit: unit), provider: .lemonsqueezy, testMode: true))
    }

    /// Logs the history, calling `afterEach` with the count logged so far
    /// after each row (the incremental gauges' test computes in between).
    static func logHistory(_ pool: PostgresPool, afterEach: (Int) async throws -> Void = { _ in }) async throws {
        var offset: Int64 = 0
        func log(_ event: BillingEvent, key: String) async throws {
            offset += 1
            try await insert(event, key: key, offset: offset, pool: pool)
            try await afterEach(Int(offset))
        }
        // Lemon Squeezy subscriptions: the whole object in each event.
        func ls(_ id: String, _ kind: BillingEventKind, _ at: Date, status: String, variant: String, endsAt: Date? = nil) -> BillingEvent {
            var e = BillingEvent(kind: kind, provider: .lemonsqueezy, providerEventName: "ls", entityKey: "lemonsqueezy:sub_\(id)")
            e.subscriptionID = id
            e.status = status
            e.variantID = variant
            e.productID = "1"
            e.cancelled = status == "cancelled"
            e.endsAt = endsAt
            e.createdAt = at
            e.updatedAt = at
            e.orderingTimestamp = at
            return e
        }
        var l1 = ls("L1", .subscriptionCreated, date(10, 5), status: "active", variant: "101")
        l1.orderID = "OL1"
        try await log(l1, key: "L1a")
        try await log(ls("L1", .subscriptionUpdated, date(11, 10), status: "active", variant: "102"), key: "L1b")
        var refund = BillingEvent(
            kind: .paymentRefunded, provider: .lemonsqueezy, providerEventName: "subscription_payment_refunded", entityKey: "lemonsqueezy:sub_L1")
        refund.subscriptionID = "L1"
        refund.invoiceID = "I1"
        refund.amount = 2500
        refund.refundedAmount = 500
        refund.currency = "USD"
        refund.orderingTimestamp = date(11, 11)
        try await log(refund, key: "L1c")
        // The same $5.00 announced again as the refund of L1's first order: counted once.
        var orderRefund = BillingEvent(
            kind: .orderRefunded, provider: .lemonsqueezy, providerEventName: "order_refunded", entityKey: "lemonsqueezy:order_OL1")
        orderRefund.orderID = "OL1"
        orderRefund.amount = 1000
        orderRefund.refundedAmount = 500
        orderRefund.currency = "USD"
        orderRefund.orderingTimestamp = date(11, 11)
        try await log(orderRefund, key: "L1d")

        try await log(ls("L2", .subscriptionCreated, date(10, 8), status: "active", variant: "102"), key: "L2a")
        try await log(ls("L2", .subscriptionUpdated, date(11, 12), status: "active", variant: "101"), key: "L2b")
        var failed = BillingEvent(
            kind: .paymentFailed, provider: .lemonsqueezy, providerEventName: "subscription_payment_failed", entityKey: "lemonsqueezy:sub_L2")
        failed.subscriptionID = "L2"
        failed.invoiceID = "I2"
        failed.status = "failed"
        failed.currency = "USD"
        failed.orderingTimestamp = date(11, 25)
        try await log(failed, key: "L2c")
        try await log(ls("L2", .subscriptionUpdated, date(11, 25, hour: 13), status: "past_due", variant: "101"), key: "L2d")

        try await log(ls("L3", .subscriptionCreated, date(10, 20), status: "active", variant: "101"), key: "L3a")
        try await log(ls("L3", .subscriptionCancelled, date(11, 3), status: "cancelled", variant: "101", endsAt: date(11, 20)), key: "L3b")

        try await log(ls("L4", .subscriptionCreated, date(11, 2), status: "on_trial", variant: "101"), key: "L4a")
        try await log(ls("L4", .subscriptionUpdated, date(11, 16), status: "active", variant: "101"), key: "L4b")

        try await log(ls("L5", .subscriptionCreated, date(11, 5), status: "on_trial", variant: "102"), key: "L5a")
        try await log(ls("L5", .subscriptionExpired, date(11, 19), status: "expired", variant: "102"), key: "L5b")

        try await log(ls("L6", .subscriptionCreated, date(9, 1), status: "active", variant: "101"), key: "L6a")
        try await log(ls("L6", .subscriptionPaused, date(10, 1), status: "paused", variant: "101"), key: "L6b")
        try await log(ls("L6", .subscriptionUnpaused, date(11, 8), status: "active", variant: "101"), key: "L6c")

        try await log(ls("L7", .subscriptionCreated, date(10, 1), status: "active", variant: "999"), key: "L7a")

        var order = BillingEvent(kind: .orderCreated, provider: .lemonsqueezy, providerEventName: "order_created", entityKey: "lemonsqueezy:order_O9")
        order.orderID = "O9"
        order.amount = 1500
        order.currency = "USD"
        order.status = "paid"
        order.orderingTimestamp = date(11, 2)
        try await log(order, key: "O9a")
        order.kind = .orderRefunded
        order.status = "refunded"
        order.refundedAmount = 1500
        order.orderingTimestamp = date(11, 14)
        try await log(order, key: "O9b")

        // Paystack: the plan's price is in each subscription event.
        func ps(_ id: String, _ kind: BillingEventKind, _ at: Date, plan: String, price: RecurringPrice, status: String) -> BillingEvent {
            var e = BillingEvent(kind: kind, provider: .paystack, providerEventName: "ps", entityKey: "paystack:CUS_\(id)")
            e.subscriptionID = id
            e.status = status
            e.productID = plan
            e.variantID = plan
            e.currency = "NGN"
            e.recurringPrice = price
            e.createdAt = at
            e.orderingTimestamp = at
            return e
        }
        let monthly = RecurringPrice(amount: 500_000, currency: "NGN", interval: BillingInterval(unit: .month))
        let yearly = RecurringPrice(amount: 4_800_000, currency: "NGN", interval: BillingInterval(unit: .year))
        let weekly = RecurringPrice(amount: 120_000, currency: "NGN", interval: BillingInterval(unit: .week))
        try await log(ps("P1", .subscriptionCreated, date(10, 10), plan: "PLN_m", price: monthly, status: "active"), key: "P1a")
        try await log(ps("P2", .subscriptionCreated, date(11, 4), plan: "PLN_y", price: yearly, status: "active"), key: "P2a")
        try await log(ps("P3", .subscriptionCreated, date(10, 15), plan: "PLN_w", price: weekly, status: "active"), key: "P3a")
        try await log(ps("P3", .subscriptionDisabled, date(11, 9), plan: "PLN_w", price: weekly, status: "cancelled"), key: "P3b")

        var dispute = BillingEvent(
            kind: .disputeCreated, provider: .paystack, providerEventName: "charge.dispute.create", entityKey: "paystack:CUS_P1")
        dispute.transactionReference = "T1"
        dispute.amount = 500_000
        dispute.currency = "NGN"
        dispute.orderingTimestamp = date(11, 21)
        try await log(dispute, key: "D1")
        var processed = BillingEvent(kind: .refundProcessed, provider: .paystack, providerEventName: "refund.processed", entityKey: "paystack:ref_T2")
        processed.transactionReference = "T2"
        processed.refundedAmount = 250_000
        processed.currency = "NGN"
        processed.orderingTimestamp = date(11, 22)
        try await log(processed, key: "R1")
    }

    /// One row as the projector logs it.
    static func insert(_ event: BillingEvent, key: String, offset: Int64, pool: PostgresPool) async throws {
        try await pool.execute(insertion(event, key: key, offset: offset))
    }

    /// The INSERT of ``insert(_:key:offset:pool:)``, to run on a connection of one's own.
    static func insertion(_ event: BillingEvent, key: String, offset: Int64) throws -> PostgresQuery {
        let json = String(decoding: try RecordCoding.encode(event), as: UTF8.self)
        let price = event.recurringPrice
        return
            """
            INSERT INTO billing_events (dedup_key, provider, event_name, kind, entity_key, subscription_id, order_id, ordering_ts,
                received_at, source_partition, source_offset, event, payload, price_amount, price_currency, interval_unit, interval_count)
            VALUES (\(key), \(event.provider.rawValue), \(event.providerEventName), \(event.kind.rawValue), \(event.entityKey),
                \(event.subscriptionID), \(event.orderID), \(event.orderingTimestamp), \(event.orderingTimestamp ?? Date()), 0, \(offset),
                \(json)::jsonb, ''::bytea, \(price?.amount), \(price?.currency), \(price?.interval.unit.rawValue), \(price.map { Int32($0.interval.count) }))
            """
    }

    /// Noon UTC on a day of 2026 (midnight with `hour: 0`).
    static func date(_ month: Int, _ day: Int, hour: Int = 12) -> Date {
        var components = DateComponents()
        (components.year, components.month, components.day, components.hour) = (2026, month, day, hour)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: components)!
    }
}
