import ServiceSettings
import Foundation
import BillingModel
import Catalog
import Entitlements
@testable import ReconcilerService
import ServiceRuntime
import StorefrontCLI
import Telemetry
import TestSupport
import Testing

/// The reconciler's revenue gauges over a real PostgreSQL, on the history
/// whose figures were computed by hand (``RevenueReportFixtureTests``): at
/// the last hour of November 2026 the gauges show that month's figures,
/// with Lemon Squeezy priced from a catalog source (as the reconciler
/// fetches it), and each one equals `storefront report`'s for the same moment.
@Suite struct RevenueGaugesFixtureTests {
    let logger = Logger(service: "cli-tests", minimumLevel: .critical)
    static let asOf = RevenueReportFixtureTests.date(11, 30, hour: 23)

    /// The fixture's catalog as a provider client lists it (variants 101, 102, 103).
    struct FixtureCatalog: CatalogSource {
        let provider = Provider.lemonsqueezy
        func fetchCatalog() async throws -> [CatalogItem] {
            [("101", 1000, BillingInterval.Unit.month), ("102", 2500, .month), ("103", 12000, .year)].map { variant, price, unit in
                CatalogItem(
                    provider: .lemonsqueezy, productID: "1", variantID: variant, name: "Plan \(variant)", price: price, currency: "USD",
                    interval: BillingInterval(unit: unit))
            }
        }
    }

    @Test func gaugesShowTheHandComputedNovember() async throws {
        try await FreshDatabase.with(prefix: "test_revenue_gauges") { pool, url in
            _ = try await MigrateCommand.run(environment: Environment(["DATABASE_URL": url]), logger: logger)
            try await RevenueReportFixtureTests.logHistory(pool)
            let registry = MetricsRegistry()
            let catalog = CatalogCache(sources: [FixtureCatalog()], logger: logger)
            let gauges = RevenueGauges(
                source: LogRevenueFigures(pool: pool, catalog: catalog), registry: registry, logger: logger, now: { Self.asOf })
            await gauges.refresh()
            let series = Self.parse(registry.renderPrometheus())

            func value(_ name: String, _ provider: String, _ currency: String, _ extra: String = "") -> Double? {
                series["\(name){currency=\"\(currency)\",\(extra)provider=\"\(provider)\"}"]
            }
            // The hand-computed figures (RevenueReportFixtureTests' table), money in major units.
            #expect(value("storefront_mrr", "lemonsqueezy", "USD") == 55)
            #expect(value("storefront_mrr", "paystack", "NGN") == 9000)
            #expect(value("storefront_mrr", "lemonsqueezy", "unknown") == 0)
            let usdMovements = ["new": 10.0, "expansion": 15, "contraction": 15, "churn": 10, "reactivation": 10]
            for (movement, amount) in usdMovements {
                #expect(value("storefront_mrr_movements", "lemonsqueezy", "USD", "movement=\"\(movement)\",") == amount, "\(movement)")
            }
            #expect(value("storefront_mrr_movements", "paystack", "NGN", "movement=\"new\",") == 4000)
            #expect(value("storefront_mrr_movements", "paystack", "NGN", "movement=\"churn\",") == 5200)
            #expect(value("storefront_revenue_active_subscribers", "lemonsqueezy", "USD") == 4)
            #expect(value("storefront_revenue_active_subscribers", "lemonsqueezy", "unknown") == 1)
            #expect(value("storefront_revenue_unknown_interval_subscribers", "lemonsqueezy", "unknown") == 1)
            #expect(value("storefront_revenue_active_subscribers", "paystack", "NGN") == 2)
            #expect(value("storefront_revenue_in_grace_subscriptions", "lemonsqueezy", "USD") == 1)
            #expect(value("storefront_revenue_trialing_subscriptions", "lemonsqueezy", "USD") == 0)
            let usdEvents = [
                "new_subscriptions": 2.0, "churned_subscriptions": 1, "trial_starts": 2, "trial_conversions": 1, "refunds": 2, "disputes": 0,
                "failed_payments": 1,
            ]
            for (event, count) in usdEvents {
                #expect(value("storefront_revenue_month_events", "lemonsqueezy", "USD", "event=\"\(event)\",") == count, "\(event)")
            }
            #expect(value("storefront_revenue_month_events", "paystack", "NGN", "event=\"disputes\",") == 1)
            #expect(value("storefront_revenue_month_refunded", "lemonsqueezy", "USD") == 20)
            #expect(value("storefront_revenue_month_refunded", "paystack", "NGN") == 2500)
            #expect(series["reconciler_revenue_last_refresh_timestamp_seconds"] == Self.asOf.timeIntervalSince1970)
            #expect(series["reconciler_revenue_events_read"] == 25)
            #expect(series["reconciler_revenue_refresh_failures_total"] == 0)

            // `storefront report` for the same moment: every figure the same.
            let rows = try await ReportCommand.report(
                ReportPeriod.month(containing: Self.asOf), pool: pool, prices: RevenueReportFixtureTests.catalog, asOf: Self.asOf)
            #expect(rows.count == 3)
            for row in rows {
                for figure in RevenueGauge.allCases {
                    let labels = (["currency": row.currency, "provider": row.provider.rawValue].merging(figure.labels) { $1 })
                        .sorted { $0.key < $1.key }.map { "\($0.key)=\"\($0.value)\"" }.joined(separator: ",")
                    #expect(series["\(figure.name){\(labels)}"] == figure.value(row), "\(figure.name){\(labels)}")
                }
            }
        }
    }

    /// Sample lines of a Prometheus text page, by series (name and labels as rendered).
    static func parse(_ text: String) -> [String: Double] {
        var result: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            result[String(line[..<space])] = value
        }
        return result
    }
}
