import ServiceSettings
import Foundation
import BillingModel
import Postgres
import ServiceRuntime
import StorefrontCLI
import Telemetry
import TestSupport
import Testing

/// `storefront report --storefronts` against a hand-computed November:
/// checkouts from App Store storefronts (and one from none), the purchases
/// they made linked as the projector links them, and the `payments` and
/// `orders` rows of their money.
///
/// | checkout | storefront | purchase                                                                    |
/// |----------|------------|-----------------------------------------------------------------------------|
/// | C1       | USA        | LA (Lemon Squeezy, named by its event): paid $10 2 Nov, $10 25 Nov, $10 28 Nov refunded |
/// | C2       | NLD        | O1 one-time €20 10 Nov, €5 of it refunded 12 Nov                            |
/// | C3       | USA        | O2 one-time $15 20 Oct (before), refunded in full 5 Nov                     |
/// | C4       | —          | O3 one-time $99 10 Nov: no storefront, not counted                          |
/// | C5       | JPN        | PA (Paystack, by its charge's card): ₦5,000 7 Nov                            |
/// | C6       | USA        | O4 one-time $7 2 Dec (after)                                                 |
///
/// November: JPN NGN 1 purchase, ₦5,000 charged; NLD EUR 1 purchase, €20
/// charged, 1 refund of €5, net €15; USA USD 1 purchase and 2 renewals
/// ($30 charged: the refunded payment was charged too), 2 refunds ($10 and
/// $15), net $5. At `USA=0.27,*=0.1`: USA owes $1.35, NLD €1.50, JPN ₦500.
@Suite struct StorefrontReportFixtureTests {
    let logger = Logger(service: "cli-tests", minimumLevel: .critical)

    @Test func novemberMatchesTheHandComputedFigures() async throws {
        try await FreshDatabase.with(prefix: "test_storefronts") { pool, url in
            let environment = Environment(["DATABASE_URL": url])
            _ = try await MigrateCommand.run(environment: environment, logger: logger)
            try await Self.seed(pool)
            let arguments = ["report", "--from", "2026-11-01", "--to", "2026-12-01", "--storefronts", "--commission", "USA=0.27,*=0.1"]

            let json = Output()
            try await ReportCommand.run(try CommandLineArguments(arguments + ["--format", "json"]), environment: environment) { json($0) }
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? [String: Any])
            let lines = try #require(object["storefronts"] as? [[String: Any]])
            func figures(_ storefront: String) -> [String: String] {
                (lines.first { $0["storefront"] as? String == storefront } ?? [:]).mapValues { "\($0)" }
            }
            #expect(lines.map { $0["storefront"] as? String } == ["JPN", "NLD", "USA"], "\(json.text)")
            #expect(
                figures("JPN") == [
                    "storefront": "JPN", "currency": "NGN", "purchases": "1", "renewals": "0", "charged": "500000", "refunds": "0",
                    "refunded": "0", "net": "500000", "commission_rate": "0.1", "owed": "50000",
                ])
            #expect(
                figures("NLD") == [
                    "storefront": "NLD", "currency": "EUR", "purchases": "1", "renewals": "0", "charged": "2000", "refunds": "1",
                    "refunded": "500", "net": "1500", "commission_rate": "0.1", "owed": "150",
                ])
            #expect(
                figures("USA") == [
                    "storefront": "USA", "currency": "USD", "purchases": "1", "renewals": "2", "charged": "3000", "refunds": "2",
                    "refunded": "2500", "net": "500", "commission_rate": "0.27", "owed": "135",
                ])

            let table = Output()
            try await ReportCommand.run(try CommandLineArguments(arguments), environment: environment) { table($0) }
            #expect(table.text.contains("linked checkouts by App Store storefront 2026-11-01 to 2026-12-01"), "\(table.text)")
            #expect(table.text.contains("USA         USD"), "\(table.text)")

            let csv = Output()
            try await ReportCommand.run(try CommandLineArguments(arguments + ["--format", "csv"]), environment: environment) { csv($0) }
            #expect(csv.text.split(separator: "\n").last == "USA,USD,1,2,3000,2,2500,500,0.27,135", "\(csv.text)")

            // With no rate given, nothing is owed.
            let plain = Output()
            try await ReportCommand.run(
                try CommandLineArguments(Array(arguments.dropLast(2)) + ["--format", "csv"]), environment: environment
            ) { plain($0) }
            #expect(plain.text.split(separator: "\n").last == "USA,USD,1,2,3000,2,2500,500,0,0", "\(plain.text)")
        }
    }

    static func seed(_ pool: PostgresPool) async throws {
        func checkout(_ id: String, _ storefront: String?, provider: Provider = .lemonsqueezy, subscription: Bool) async throws {
            try await pool.execute(
                """
                INSERT INTO checkouts (checkout_id, provider, app_user_id, email, variant_id, url, created_at, completed_at, is_subscription,
                    app_store_storefront)
                VALUES (\(id), \(provider.rawValue), NULL, 'buyer@example.com', 'v', 'https://pay.example.com', \(date(10, 1)), \(date(10, 1)),
                    \(subscription), \(storefront))
                """)
        }
        try await checkout("C1", "USA", subscription: true)
        try await checkout("C2", "NLD", subscription: false)
        try await checkout("C3", "USA", subscription: false)
        try await checkout("C4", nil, subscription: false)
        try await checkout("C5", "JPN", provider: .paystack, subscription: true)
        try await checkout("C6", "USA", subscription: false)

        // LA's event names C1; PA shares C5's charge's card and customer.
        var la = BillingEvent(kind: .subscriptionCreated, provider: .lemonsqueezy, providerEventName: "ls", entityKey: "lemonsqueezy:sub_LA")
        la.subscriptionID = "LA"
        la.checkoutID = "C1"
        la.orderingTimestamp = date(11, 2)
        try await CampaignReportFixtureTests.insert(la, key: "LA1", offset: 1, pool: pool)
        var charge = BillingEvent(kind: .paymentSucceeded, provider: .paystack, providerEventName: "charge.success", entityKey: "paystack:C5")
        charge.checkoutID = "C5"
        charge.authorizationCode = "AUTH_1"
        charge.customerID = "CUS_1"
        charge.orderingTimestamp = date(11, 7)
        try await CampaignReportFixtureTests.insert(charge, key: "C5charge", offset: 2, pool: pool)
        try await pool.execute(
            """
            INSERT INTO subscriptions (provider, subscription_id, status, last_event_key, customer_id, authorization_code)
            VALUES ('paystack', 'PA', 'active', 'PA1', 'CUS_1', 'AUTH_1')
            """)

        let payments: [(String, String, String, String, Int64, String, Date)] = [
            ("lemonsqueezy", "P1", "LA", "paymentSucceeded", 1000, "USD", date(11, 2)),
            ("lemonsqueezy", "P2", "LA", "paymentSucceeded", 1000, "USD", date(11, 25)),
            ("lemonsqueezy", "P3", "LA", "paymentRefunded", 1000, "USD", date(11, 28)),
            ("paystack", "T1", "PA", "paymentSucceeded", 500_000, "NGN", date(11, 7)),
        ]
        for (provider, id, subscription, kind, amount, currency, at) in payments {
            try await pool.execute(
                """
                INSERT INTO payments (provider, payment_id, subscription_id, kind, status, amount, currency, occurred_at)
                VALUES (\(provider), \(id), \(subscription), \(kind), NULL, \(amount), \(currency), \(at))
                """)
        }
        let orders: [(String, String, String, Int64, String, Date, Int64?, Date?)] = [
            ("O1", "C2", "partially_refunded", 2000, "EUR", date(11, 10), 500, date(11, 12)),
            ("O2", "C3", "refunded", 1500, "USD", date(10, 20), 1500, date(11, 5)),
            ("O3", "C4", "paid", 9900, "USD", date(11, 10), nil, nil),
            ("O4", "C6", "paid", 700, "USD", date(12, 2), nil, nil),
        ]
        for (order, checkout, status, amount, currency, paid, refunded, refundedAt) in orders {
            try await pool.execute(
                """
                INSERT INTO orders (provider, order_id, status, amount, currency, paid_at, checkout_id, refunded_amount, refunded_at)
                VALUES ('lemonsqueezy', \(order), \(status), \(amount), \(currency), \(paid), \(checkout), \(refunded), \(refundedAt))
                """)
        }
    }

    static func date(_ month: Int, _ day: Int) -> Date { RevenueReportFixtureTests.date(month, day, hour: 12) }
}
