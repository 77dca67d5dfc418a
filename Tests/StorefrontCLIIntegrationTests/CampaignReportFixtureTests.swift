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

/// `storefront report --campaigns` against a hand-computed history: checkouts
/// with two tags and none, as the projector records them (`checkouts`, its
/// `ref` and `completed_at`), the purchases they made, logged into
/// `billing_events` with the columns that link them (`checkout_id`,
/// `authorization_code`, `customer_id`), the projection's `subscriptions`
/// (Paystack's card link) and `orders` rows. Checkouts open at 10:00 UTC,
/// purchases at noon. Prices: Lemon Squeezy variant 101 $10.00 a month and
/// 102 $25.00 a month (the catalog); Paystack ₦5,000 a month, ₦48,000 a year
/// (₦4,000 a month) and ₦1,200 a week (₦5,200 a month), stated in the events.
///
/// | checkout | ref    | opened | completed | purchase                                                          |
/// |----------|--------|--------|-----------|-------------------------------------------------------------------|
/// | C1       | spring | 2 Nov  | 2 Nov     | LA: Lemon Squeezy 101 active 2 Nov (new $10.00)                   |
/// | C2       | spring | 3 Nov  | 3 Nov     | LB: 102 on_trial 3 Nov, active 17 Nov (new $25.00 on 17 Nov)      |
/// | C3       | spring | 4 Nov  | —         | —                                                                 |
/// | C4       | spring | 5 Nov  | 5 Nov     | PA: Paystack ₦5,000/month by card (AUTH_1, CUS_1)                 |
/// | C12      | spring | 20 Nov | 20 Nov    | PC: ₦1,200/week by card AUTH_2, CUS_2 (the same card as C11)      |
/// | C5       | summer | 10 Nov | 10 Nov    | O1: one-time order                                                |
/// | C6       | summer | 12 Nov | —         | —                                                                 |
/// | C7       | summer | 30 Oct | 1 Nov     | LC: 101 active 1 Nov (new $10.00)                                 |
/// | C8       | summer | 5 Oct  | 5 Oct     | LD: 101 active 5 Oct, 102 on 15 Nov (expansion: not new)          |
/// | C11      | summer | 6 Nov  | 6 Nov     | PB: ₦48,000/year by card AUTH_2, CUS_2                            |
/// | C9       | —      | 20 Nov | 20 Nov    | O2: one-time order                                                |
/// | C10      | —      | 21 Nov | —         | —                                                                 |
/// | C13      | spring | 2 Dec  | 2 Dec     | LE: 101 active 2 Dec (after the period)                           |
/// | —        |        |        |           | LZ: 101 active 15 Nov, through no checkout: in no campaign        |
///
/// PB and PC share a card, so each links to both C11 and C12; each counts
/// once, for the checkout opened last before it began: PB (6 Nov) for C11,
/// PC (20 Nov) for C12.
///
/// November: spring opened 5, completed 4, new subscriptions 4 (LA LB PA PC),
/// one-time 0, new MRR USD 3500, NGN 1,020,000 (500,000 + 520,000); summer
/// opened 3 (C5 C6 C11), completed 3 (C5 C7 C11), new subscriptions 2 (LC
/// PB), one-time 1, new MRR USD 1000, NGN 400,000; (none) opened 2,
/// completed 1, one-time 1, nothing else.
@Suite struct CampaignReportFixtureTests {
    let logger = Logger(service: "cli-tests", minimumLevel: .critical)
    static let november = ReportPeriod(from: date(11, 1, hour: 0), to: date(12, 1, hour: 0), granularity: .month)

    @Test func novemberMatchesTheHandComputedFigures() async throws {
        try await FreshDatabase.with(prefix: "test_campaigns") { pool, url in
            _ = try await MigrateCommand.run(environment: Environment(["DATABASE_URL": url]), logger: logger)
            try await Self.seed(pool)
            let rows = try await ReportCommand.campaigns(Self.november, pool: pool, prices: RevenueReportFixtureTests.catalog, asOf: Self.date(12, 5))
            #expect(rows.map(\.ref) == ["spring", "summer", nil])

            let spring = try #require(rows.first { $0.ref == "spring" })
            #expect(spring.checkoutsOpened == 5)
            #expect(spring.checkoutsCompleted == 4)
            #expect(spring.newSubscriptions == 4)
            #expect(spring.oneTimePurchases == 0)
            #expect(spring.newMRR == ["USD": 3500, "NGN": 1_020_000])

            let summer = try #require(rows.first { $0.ref == "summer" })
            #expect(summer.checkoutsOpened == 3)
            #expect(summer.checkoutsCompleted == 3)
            #expect(summer.newSubscriptions == 2)
            #expect(summer.oneTimePurchases == 1)
            #expect(summer.newMRR == ["USD": 1000, "NGN": 400_000])

            let untagged = try #require(rows.first { $0.ref == nil })
            #expect(untagged.checkoutsOpened == 2)
            #expect(untagged.checkoutsCompleted == 1)
            #expect(untagged.newSubscriptions == 0)
            #expect(untagged.oneTimePurchases == 1)
            #expect(untagged.newMRR.isEmpty)

            // The campaigns' new MRR is the revenue report's: the same rule, a part of its total (LZ came through no checkout).
            let revenue = try await ReportCommand.report(Self.november, pool: pool, prices: RevenueReportFixtureTests.catalog, asOf: Self.date(12, 5))
            let usd = try #require(revenue.first { $0.provider == .lemonsqueezy && $0.currency == "USD" })
            let ngn = try #require(revenue.first { $0.provider == .paystack && $0.currency == "NGN" })
            #expect(usd.newMRR == 3500 + 1000 + 1000)
            #expect(ngn.newMRR == 1_020_000 + 400_000)

            // As of 10 November: what was known then (LB had not converted, C12 was not opened).
            let early = try await ReportCommand.campaigns(
                Self.november, pool: pool, prices: RevenueReportFixtureTests.catalog, asOf: Self.date(11, 10))
            let earlySpring = try #require(early.first { $0.ref == "spring" })
            #expect(earlySpring.checkoutsOpened == 4)
            #expect(earlySpring.newSubscriptions == 3)
            #expect(earlySpring.newMRR == ["USD": 1000, "NGN": 500_000])
            #expect(early.first { $0.ref == nil } == nil)
        }
    }

    /// By week, each figure falls in the week it happened, and the weeks add up to the month.
    @Test func weeksAddUpToTheMonth() async throws {
        try await FreshDatabase.with(prefix: "test_campaigns") { pool, url in
            _ = try await MigrateCommand.run(environment: Environment(["DATABASE_URL": url]), logger: logger)
            try await Self.seed(pool)
            var period = Self.november
            period.granularity = .week
            let weeks = try await ReportCommand.campaigns(period, pool: pool, prices: RevenueReportFixtureTests.catalog, asOf: Self.date(12, 5))
            // Every tag keeps every week (6, cut at the month's ends).
            #expect(weeks.count == 3 * 6)
            let spring = weeks.filter { $0.ref == "spring" }
            #expect(spring.map(\.checkoutsOpened).reduce(0, +) == 5)
            #expect(spring.map(\.checkoutsCompleted).reduce(0, +) == 4)
            #expect(spring.map(\.newSubscriptions).reduce(0, +) == 4)
            #expect(spring.map { $0.newMRR["USD"] ?? 0 }.reduce(0, +) == 3500)
            // LB: a new subscription in the week of 2 November (its trial), new MRR in the week of 16 November (paid).
            let second = try #require(spring.first { $0.periodStart == Self.date(11, 2, hour: 0) })
            #expect(second.newSubscriptions == 3)
            #expect(second.newMRR == ["USD": 1000, "NGN": 500_000])
            let fourth = try #require(spring.first { $0.periodStart == Self.date(11, 16, hour: 0) })
            #expect(fourth.newMRR == ["USD": 2500, "NGN": 520_000])
        }
    }

    /// The command as an operator runs it: table, CSV and JSON; no chart.
    @Test func commandWritesTheTableCSVAndJSON() async throws {
        try await FreshDatabase.with(prefix: "test_campaigns") { pool, url in
            let environment = Environment(["DATABASE_URL": url])
            _ = try await MigrateCommand.run(environment: environment, logger: logger)
            try await Self.seed(pool)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("campaigns-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let catalog = folder.appendingPathComponent("products.json")
            try Data(RecordCoding.encode(RevenueReportFixtureTests.catalogAnswer)).write(to: catalog)
            let common = ["report", "--campaigns", "--from", "2026-11-01", "--to", "2026-12-01", "--catalog", catalog.path]

            let table = Output()
            try await ReportCommand.run(try CommandLineArguments(common), environment: environment, now: Self.date(12, 5)) { table($0) }
            #expect(table.text.hasPrefix("campaigns 2026-11-01 to 2026-12-01 by month, as of 2026-12-01T00:00:00"))
            #expect(table.text.contains("spring") && table.text.contains("summer") && table.text.contains("(none)"))
            #expect(table.text.contains("$35.00") && table.text.contains("₦10,200.00"))

            let csv = Output()
            try await ReportCommand.run(try CommandLineArguments(common + ["--format", "csv"]), environment: environment, now: Self.date(12, 5)) {
                csv($0)
            }
            let lines = csv.text.split(separator: "\n")
            #expect(lines.count == 4)
            #expect(
                lines.first
                    == "period_start,period_end,ref,checkouts_opened,checkouts_completed,new_subscriptions,one_time_purchases,new_mrr_NGN,new_mrr_USD"
            )
            #expect(lines.contains { $0.hasSuffix(",spring,5,4,4,0,1020000,3500") })
            #expect(lines.contains { $0.hasSuffix(",summer,3,3,2,1,400000,1000") })
            #expect(lines.contains { $0.hasSuffix(",(none),2,1,0,1,0,0") })

            let json = Output()
            try await ReportCommand.run(try CommandLineArguments(common + ["--format", "json"]), environment: environment, now: Self.date(12, 5)) {
                json($0)
            }
            let decoded = try JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? [String: Any]
            let campaigns = try #require(decoded?["campaigns"] as? [[String: Any]])
            #expect(campaigns.count == 3)
            let summer = try #require(campaigns.first { $0["ref"] as? String == "summer" })
            #expect((summer["checkouts_opened"] as? NSNumber)?.intValue == 3)
            #expect(((summer["new_mrr"] as? [String: Any])?["NGN"] as? NSNumber)?.int64Value == 400_000)
            #expect(campaigns.contains { $0["ref"] is NSNull })
        }
    }

    // MARK: - The history

    static func seed(_ pool: PostgresPool) async throws {
        func checkout(
            _ id: String, _ ref: String?, provider: Provider = .lemonsqueezy, opened: Date, completed: Date?, subscription: Bool
        ) async throws {
            try await pool.execute(
                """
                INSERT INTO checkouts (checkout_id, provider, app_user_id, email, variant_id, url, created_at, completed_at, is_subscription, ref)
                VALUES (\(id), \(provider.rawValue), NULL, 'buyer@example.com', 'v', 'https://pay.example.com', \(opened), \(completed),
                    \(subscription), \(ref))
                """)
        }
        try await checkout("C1", "spring", opened: date(11, 2, hour: 10), completed: date(11, 2), subscription: true)
        try await checkout("C2", "spring", opened: date(11, 3, hour: 10), completed: date(11, 3), subscription: true)
        try await checkout("C3", "spring", opened: date(11, 4, hour: 10), completed: nil, subscription: true)
        try await checkout("C4", "spring", provider: .paystack, opened: date(11, 5, hour: 10), completed: date(11, 5), subscription: true)
        try await checkout("C12", "spring", provider: .paystack, opened: date(11, 20, hour: 10), completed: date(11, 20), subscription: true)
        try await checkout("C5", "summer", opened: date(11, 10, hour: 10), completed: date(11, 10), subscription: false)
        try await checkout("C6", "summer", opened: date(11, 12, hour: 10), completed: nil, subscription: false)
        try await checkout("C7", "summer", opened: date(10, 30, hour: 10), completed: date(11, 1), subscription: true)
        try await checkout("C8", "summer", opened: date(10, 5, hour: 10), completed: date(10, 5), subscription: true)
        try await checkout("C11", "summer", provider: .paystack, opened: date(11, 6, hour: 10), completed: date(11, 6), subscription: true)
        try await checkout("C9", nil, opened: date(11, 20, hour: 10), completed: date(11, 20), subscription: false)
        try await checkout("C10", nil, opened: date(11, 21, hour: 10), completed: nil, subscription: false)
        try await checkout("C13", "spring", opened: date(12, 2, hour: 10), completed: date(12, 2), subscription: true)

        var offset: Int64 = 0
        func log(_ event: BillingEvent, key: String) async throws {
            offset += 1
            try await insert(event, key: key, offset: offset, pool: pool)
        }
        // Lemon Squeezy: the checkout id travels in each subscription event's custom data.
        func ls(_ id: String, _ kind: BillingEventKind, _ at: Date, status: String, variant: String, checkout: String?) -> BillingEvent {
            var e = BillingEvent(kind: kind, provider: .lemonsqueezy, providerEventName: "ls", entityKey: "lemonsqueezy:sub_\(id)")
            e.subscriptionID = id
            e.status = status
            e.variantID = variant
            e.productID = "1"
            e.checkoutID = checkout
            e.createdAt = at
            e.updatedAt = at
            e.orderingTimestamp = at
            return e
        }
        try await log(ls("LA", .subscriptionCreated, date(11, 2), status: "active", variant: "101", checkout: "C1"), key: "LA1")
        try await log(ls("LB", .subscriptionCreated, date(11, 3), status: "on_trial", variant: "102", checkout: "C2"), key: "LB1")
        try await log(ls("LB", .subscriptionUpdated, date(11, 17), status: "active", variant: "102", checkout: "C2"), key: "LB2")
        try await log(ls("LC", .subscriptionCreated, date(11, 1), status: "active", variant: "101", checkout: "C7"), key: "LC1")
        try await log(ls("LD", .subscriptionCreated, date(10, 5), status: "active", variant: "101", checkout: "C8"), key: "LD1")
        try await log(ls("LD", .subscriptionUpdated, date(11, 15), status: "active", variant: "102", checkout: "C8"), key: "LD2")
        try await log(ls("LE", .subscriptionCreated, date(12, 2), status: "active", variant: "101", checkout: "C13"), key: "LE1")
        try await log(ls("LZ", .subscriptionCreated, date(11, 15), status: "active", variant: "101", checkout: nil), key: "LZ1")

        // Paystack: the checkout's charge names the checkout and the card; the subscription names neither.
        func charge(_ checkout: String, _ at: Date, authorization: String, customer: String) -> BillingEvent {
            var e = BillingEvent(kind: .paymentSucceeded, provider: .paystack, providerEventName: "charge.success", entityKey: "paystack:\(checkout)")
            e.checkoutID = checkout
            e.authorizationCode = authorization
            e.customerID = customer
            e.currency = "NGN"
            e.orderingTimestamp = at
            return e
        }
        func ps(_ id: String, _ at: Date, price: RecurringPrice, authorization: String, customer: String) async throws {
            var e = BillingEvent(
                kind: .subscriptionCreated, provider: .paystack, providerEventName: "subscription.create", entityKey: "paystack:\(id)")
            e.subscriptionID = id
            e.status = "active"
            e.productID = "PLN_\(id)"
            e.variantID = "PLN_\(id)"
            e.currency = "NGN"
            e.recurringPrice = price
            e.customerID = customer
            e.authorizationCode = authorization
            e.createdAt = at
            e.orderingTimestamp = at
            let key = "\(id)1"
            try await log(e, key: key)
            try await pool.execute(
                """
                INSERT INTO subscriptions (provider, subscription_id, status, last_event_key, customer_id, authorization_code)
                VALUES ('paystack', \(id), 'active', \(key), \(customer), \(authorization))
                """)
        }
        let month = BillingInterval(unit: .month), year = BillingInterval(unit: .year), week = BillingInterval(unit: .week)
        try await log(charge("C4", date(11, 5, hour: 11), authorization: "AUTH_1", customer: "CUS_1"), key: "C4charge")
        try await ps(
            "PA", date(11, 5), price: RecurringPrice(amount: 500_000, currency: "NGN", interval: month), authorization: "AUTH_1", customer: "CUS_1")
        try await log(charge("C11", date(11, 6, hour: 11), authorization: "AUTH_2", customer: "CUS_2"), key: "C11charge")
        try await ps(
            "PB", date(11, 6), price: RecurringPrice(amount: 4_800_000, currency: "NGN", interval: year), authorization: "AUTH_2", customer: "CUS_2")
        try await log(charge("C12", date(11, 20, hour: 11), authorization: "AUTH_2", customer: "CUS_2"), key: "C12charge")
        try await ps(
            "PC", date(11, 20), price: RecurringPrice(amount: 120_000, currency: "NGN", interval: week), authorization: "AUTH_2", customer: "CUS_2")

        // One-time orders, as the projector records them from their order_created.
        for (order, checkout, paid) in [("O1", "C5", date(11, 10)), ("O2", "C9", date(11, 20))] {
            try await pool.execute(
                """
                INSERT INTO orders (provider, order_id, status, amount, currency, paid_at, checkout_id)
                VALUES ('lemonsqueezy', \(order), 'paid', 1500, 'USD', \(paid), \(checkout))
                """)
        }
    }

    /// One row as the projector logs it, with the columns that link a purchase to its checkout.
    static func insert(_ event: BillingEvent, key: String, offset: Int64, pool: PostgresPool) async throws {
        let json = String(decoding: try RecordCoding.encode(event), as: UTF8.self)
        let price = event.recurringPrice
        try await pool.execute(
            """
            INSERT INTO billing_events (dedup_key, provider, event_name, kind, entity_key, subscription_id, order_id, customer_id, ordering_ts,
                received_at, source_partition, source_offset, event, payload, checkout_id, authorization_code,
                price_amount, price_currency, interval_unit, interval_count)
            VALUES (\(key), \(event.provider.rawValue), \(event.providerEventName), \(event.kind.rawValue), \(event.entityKey),
                \(event.subscriptionID), \(event.orderID), \(event.customerID), \(event.orderingTimestamp), \(event.orderingTimestamp ?? Date()), 0,
                \(offset), \(json)::jsonb, ''::bytea, \(event.checkoutID), \(event.authorizationCode),
                \(price?.amount), \(price?.currency), \(price?.interval.unit.rawValue), \(price.map { Int32($0.interval.count) }))
            """)
    }

    /// Noon UTC on a day of 2026 (midnight with `hour: 0`).
    static func date(_ month: Int, _ day: Int, hour: Int = 12) -> Date { RevenueReportFixtureTests.date(month, day, hour: hour) }
}
