import Foundation
import BillingModel
import Entitlements
import Synchronization
import Telemetry
import Testing

@testable import ReconcilerService

/// How the revenue gauges publish what a computation gave them, over a fake
/// source (no database; the figures themselves are tested against the
/// hand-computed fixture in `RevenueGaugesFixtureTests`).
@Suite struct RevenueGaugesTests {
    /// Answers with the next of its queued results.
    final class QueuedFigures: RevenueFiguresSource {
        struct Unreadable: Error {}
        let queue: Mutex<[Result<RevenueFigures, Unreadable>]>
        init(_ results: [Result<RevenueFigures, Unreadable>]) { queue = Mutex(results) }
        func figures(asOf: Date) async throws -> RevenueFigures {
            try queue.withLock { $0.removeFirst() }.get()
        }
    }

    static let logger = Logger(service: "tests", minimumLevel: .critical)
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func row(_ provider: Provider, _ currency: String, mrr: Int64, active: Int) -> RevenueReportRow {
        var row = RevenueReportRow(periodStart: now, periodEnd: now, provider: provider, currency: currency)
        row.mrrEnd = mrr
        row.newMRR = mrr
        row.activeSubscribersEnd = active
        return row
    }

    static func series(_ registry: MetricsRegistry) -> [String: Double] {
        var result: [String: Double] = [:]
        for line in registry.renderPrometheus().split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            result[String(line[..<space])] = value
        }
        return result
    }

    @Test func publishesEachGroupAndZeroesOneThatVanishes() async {
        let registry = MetricsRegistry()
        let source = QueuedFigures([
            .success(
                RevenueFigures(
                    rows: [Self.row(.lemonsqueezy, "USD", mrr: 2500, active: 2), Self.row(.paystack, "NGN", mrr: 500_000, active: 1)], eventsRead: 9)),
            .success(RevenueFigures(rows: [Self.row(.lemonsqueezy, "USD", mrr: 3500, active: 3)], eventsRead: 11)),
        ])
        let gauges = RevenueGauges(source: source, registry: registry, logger: Self.logger, now: { Self.now })

        await gauges.refresh()
        var series = Self.series(registry)
        #expect(series[#"storefront_mrr{currency="USD",provider="lemonsqueezy"}"#] == 25)
        #expect(series[#"storefront_mrr{currency="NGN",provider="paystack"}"#] == 5000)
        #expect(series[#"storefront_mrr_movements{currency="NGN",movement="new",provider="paystack"}"#] == 5000)
        #expect(series[#"storefront_mrr_movements{currency="NGN",movement="churn",provider="paystack"}"#] == 0)
        #expect(series[#"storefront_revenue_active_subscribers{currency="USD",provider="lemonsqueezy"}"#] == 2)
        #expect(series["reconciler_revenue_events_read"] == 9)
        #expect(series["reconciler_revenue_last_refresh_timestamp_seconds"] == Self.now.timeIntervalSince1970)

        // Paystack's NGN group has nothing left: every one of its gauges drops to 0.
        await gauges.refresh()
        series = Self.series(registry)
        #expect(series[#"storefront_mrr{currency="USD",provider="lemonsqueezy"}"#] == 35)
        #expect(series[#"storefront_revenue_active_subscribers{currency="USD",provider="lemonsqueezy"}"#] == 3)
        let ngn = series.filter { $0.key.contains(#"provider="paystack""#) }
        #expect(ngn.count == RevenueGauge.allCases.count)
        #expect(ngn.values.allSatisfy { $0 == 0 }, "\(ngn)")
        #expect(series["reconciler_revenue_events_read"] == 11)
    }

    @Test func aFailedComputationIsCountedAndTheGaugesKeepTheirValues() async {
        let registry = MetricsRegistry()
        let source = QueuedFigures([
            .success(RevenueFigures(rows: [Self.row(.lemonsqueezy, "USD", mrr: 2500, active: 2)], eventsRead: 9)),
            .failure(QueuedFigures.Unreadable()),
        ])
        let times = Mutex([Self.now, Self.now.addingTimeInterval(300)])
        let gauges = RevenueGauges(source: source, registry: registry, logger: Self.logger, now: { times.withLock { $0.removeFirst() } })
        #expect(Self.series(registry)["reconciler_revenue_refresh_failures_total"] == 0)
        await gauges.refresh()
        await gauges.refresh()
        let series = Self.series(registry)
        #expect(series["reconciler_revenue_refresh_failures_total"] == 1)
        #expect(series[#"storefront_mrr{currency="USD",provider="lemonsqueezy"}"#] == 25)
        // The last success is still the first computation's time: the staleness alert's clock.
        #expect(series["reconciler_revenue_last_refresh_timestamp_seconds"] == Self.now.timeIntervalSince1970)
    }

    /// Every gauge shows its own field of the report's row (distinct values,
    /// so a swapped pair shows), money in major units.
    @Test func everyGaugeShowsItsOwnFigure() {
        var row = RevenueReportRow(periodStart: Self.now, periodEnd: Self.now, provider: .lemonsqueezy, currency: "USD")
        (row.mrrEnd, row.newMRR, row.expansionMRR, row.contractionMRR, row.churnedMRR, row.reactivationMRR) = (100, 200, 300, 400, 500, 600)
        (row.activeSubscribersEnd, row.unknownIntervalEnd, row.trialingEnd, row.inGraceEnd) = (7, 8, 9, 10)
        (row.newSubscriptions, row.churnedSubscriptions, row.trialStarts, row.trialConversions) = (11, 12, 13, 14)
        (row.refunds, row.disputes, row.failedPayments, row.refundedAmount) = (15, 16, 17, 1800)
        let registry = MetricsRegistry()
        RevenueGauges(source: QueuedFigures([]), registry: registry, logger: Self.logger).record([row])
        let series = Self.series(registry).filter { $0.key.hasPrefix("storefront_") }
        let group = #"currency="USD","#
        let usd = #"provider="lemonsqueezy""#
        #expect(
            series == [
                "storefront_mrr{\(group)\(usd)}": 1,
                "storefront_mrr_movements{\(group)movement=\"new\",\(usd)}": 2,
                "storefront_mrr_movements{\(group)movement=\"expansion\",\(usd)}": 3,
                "storefront_mrr_movements{\(group)movement=\"contraction\",\(usd)}": 4,
                "storefront_mrr_movements{\(group)movement=\"churn\",\(usd)}": 5,
                "storefront_mrr_movements{\(group)movement=\"reactivation\",\(usd)}": 6,
                "storefront_revenue_active_subscribers{\(group)\(usd)}": 7,
                "storefront_revenue_unknown_interval_subscribers{\(group)\(usd)}": 8,
                "storefront_revenue_trialing_subscriptions{\(group)\(usd)}": 9,
                "storefront_revenue_in_grace_subscriptions{\(group)\(usd)}": 10,
                "storefront_revenue_month_events{\(group)event=\"new_subscriptions\",\(usd)}": 11,
                "storefront_revenue_month_events{\(group)event=\"churned_subscriptions\",\(usd)}": 12,
                "storefront_revenue_month_events{\(group)event=\"trial_starts\",\(usd)}": 13,
                "storefront_revenue_month_events{\(group)event=\"trial_conversions\",\(usd)}": 14,
                "storefront_revenue_month_events{\(group)event=\"refunds\",\(usd)}": 15,
                "storefront_revenue_month_events{\(group)event=\"disputes\",\(usd)}": 16,
                "storefront_revenue_month_events{\(group)event=\"failed_payments\",\(usd)}": 17,
                "storefront_revenue_month_refunded{\(group)\(usd)}": 18,
            ])
        // A currency without cents is published as it is.
        row.currency = "JPY"
        #expect(RevenueGauge.mrr.value(row) == 100)
        #expect(RevenueGauge.trialing.value(row) == 9)
    }
}
