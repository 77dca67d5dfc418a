import Foundation
import BillingModel
import Entitlements

/// Each gauge ``RevenueGauges`` publishes per provider and currency, and
/// the report figure it shows (``Entitlements/RevenueReportRow``). Money is
/// published in major units of the `currency` label (dollars, naira: what a
/// panel shows without knowing each currency's decimals), converted from
/// the report's exact minor units by ``BillingModel/MoneyFormatter/exponent(of:)``,
/// the one table of decimals. Listed in docs/metrics.md, "Revenue".
enum RevenueGauge: CaseIterable {
    case mrr
    case movement(MRRMovement)
    case activeSubscribers
    case unknownIntervalSubscribers
    case trialing
    case inGrace
    case monthEvent(MonthEvent)
    case refunded

    /// What happened this month that the report counts, one `event` label value each.
    enum MonthEvent: String, CaseIterable {
        case newSubscriptions = "new_subscriptions"
        case churnedSubscriptions = "churned_subscriptions"
        case trialStarts = "trial_starts"
        case trialConversions = "trial_conversions"
        case refunds
        case disputes
        case failedPayments = "failed_payments"
    }

    static var allCases: [RevenueGauge] {
        [.mrr] + MRRMovement.allCases.map(Self.movement) + [.activeSubscribers, .unknownIntervalSubscribers, .trialing, .inGrace]
            + MonthEvent.allCases.map(Self.monthEvent) + [.refunded]
    }

    var name: String {
        switch self {
        case .mrr: "storefront_mrr"
        case .movement: "storefront_mrr_movements"
        case .activeSubscribers: "storefront_revenue_active_subscribers"
        case .unknownIntervalSubscribers: "storefront_revenue_unknown_interval_subscribers"
        case .trialing: "storefront_revenue_trialing_subscriptions"
        case .inGrace: "storefront_revenue_in_grace_subscriptions"
        case .monthEvent: "storefront_revenue_month_events"
        case .refunded: "storefront_revenue_month_refunded"
        }
    }

    var help: String {
        switch self {
        case .mrr: "Monthly recurring revenue now, in major units of the currency."
        case .movement: "MRR movements this calendar month (UTC) so far, in major units; contraction and churn as positive amounts."
        case .activeSubscribers: "Paying subscriptions now (also those of unknown interval)."
        case .unknownIntervalSubscribers: "Paying subscriptions with no price from any event or the catalog, left out of MRR."
        case .trialing: "Subscriptions in a trial now."
        case .inGrace: "Paying subscriptions whose renewal failed and that the provider still retries."
        case .monthEvent:
            "Subscriptions started, churned, trials started and converted, refunds, disputes and failed payments this calendar month (UTC) so far."
        case .refunded: "Money refunded this calendar month (UTC) so far, in major units of the currency."
        }
    }

    /// The labels beside `provider` and `currency`.
    var labels: [String: String] {
        switch self {
        case .movement(let movement): ["movement": movement.rawValue]
        case .monthEvent(let event): ["event": event.rawValue]
        case .mrr, .activeSubscribers, .unknownIntervalSubscribers, .trialing, .inGrace, .refunded: [:]
        }
    }

    /// Whether the figure is money (published in major units).
    var isMoney: Bool {
        switch self {
        case .mrr, .movement, .refunded: true
        case .activeSubscribers, .unknownIntervalSubscribers, .trialing, .inGrace, .monthEvent: false
        }
    }

    /// What the gauge shows for `row`: ``figure(_:)``, money in major units.
    func value(_ row: RevenueReportRow) -> Double {
        let figure = Double(figure(row))
        guard isMoney else { return figure }
        return figure / pow(10, Double(MoneyFormatter.exponent(of: row.currency)))
    }

    /// The report's own figure: money in minor units, as its CSV and JSON.
    func figure(_ row: RevenueReportRow) -> Int64 {
        switch self {
        case .mrr: row.mrrEnd
        case .movement(.new): row.newMRR
        case .movement(.expansion): row.expansionMRR
        case .movement(.contraction): row.contractionMRR
        case .movement(.churn): row.churnedMRR
        case .movement(.reactivation): row.reactivationMRR
        case .activeSubscribers: Int64(row.activeSubscribersEnd)
        case .unknownIntervalSubscribers: Int64(row.unknownIntervalEnd)
        case .trialing: Int64(row.trialingEnd)
        case .inGrace: Int64(row.inGraceEnd)
        case .monthEvent(.newSubscriptions): Int64(row.newSubscriptions)
        case .monthEvent(.churnedSubscriptions): Int64(row.churnedSubscriptions)
        case .monthEvent(.trialStarts): Int64(row.trialStarts)
        case .monthEvent(.trialConversions): Int64(row.trialConversions)
        case .monthEvent(.refunds): Int64(row.refunds)
        case .monthEvent(.disputes): Int64(row.disputes)
        case .monthEvent(.failedPayments): Int64(row.failedPayments)
        case .refunded: row.refundedAmount
        }
    }
}
