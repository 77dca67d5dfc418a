import BillingModel
import Entitlements

/// The figures of a report row, in the order every format shows them, with
/// the names each uses: the table's label, the CSV and JSON key.
enum ReportFigure: CaseIterable {
    case mrrStart, newMRR, expansionMRR, contractionMRR, churnedMRR, reactivationMRR, mrrEnd
    case activeSubscribersStart, activeSubscribersEnd, unknownIntervalEnd, trialingEnd, newSubscriptions, churnedSubscriptions
    case trialStarts, trialConversions, refunds, refundedAmount, disputes, failedPayments, inGraceEnd

    /// Money (minor units of the row's currency) rather than a count.
    var isMoney: Bool {
        switch self {
        case .mrrStart, .newMRR, .expansionMRR, .contractionMRR, .churnedMRR, .reactivationMRR, .mrrEnd, .refundedAmount: true
        default: false
        }
    }

    var label: String {
        switch self {
        case .mrrStart: "MRR at start"
        case .newMRR: "+ new"
        case .expansionMRR: "+ expansion"
        case .contractionMRR: "- contraction"
        case .churnedMRR: "- churn"
        case .reactivationMRR: "+ reactivation"
        case .mrrEnd: "MRR at end"
        case .activeSubscribersStart: "active subscribers at start"
        case .activeSubscribersEnd: "active subscribers at end"
        case .unknownIntervalEnd: "  of which unknown interval (not in MRR)"
        case .trialingEnd: "in trial at end"
        case .newSubscriptions: "new subscriptions"
        case .churnedSubscriptions: "churned subscriptions"
        case .trialStarts: "trial starts"
        case .trialConversions: "trial conversions"
        case .refunds: "refunds"
        case .refundedAmount: "refunded"
        case .disputes: "disputes"
        case .failedPayments: "failed payments"
        case .inGraceEnd: "in grace at end"
        }
    }

    var key: String {
        switch self {
        case .mrrStart: "mrr_start"
        case .newMRR: "new_mrr"
        case .expansionMRR: "expansion_mrr"
        case .contractionMRR: "contraction_mrr"
        case .churnedMRR: "churned_mrr"
        case .reactivationMRR: "reactivation_mrr"
        case .mrrEnd: "mrr_end"
        case .activeSubscribersStart: "active_subscribers_start"
        case .activeSubscribersEnd: "active_subscribers_end"
        case .unknownIntervalEnd: "unknown_interval_end"
        case .trialingEnd: "trialing_end"
        case .newSubscriptions: "new_subscriptions"
        case .churnedSubscriptions: "churned_subscriptions"
        case .trialStarts: "trial_starts"
        case .trialConversions: "trial_conversions"
        case .refunds: "refunds"
        case .refundedAmount: "refunded_amount"
        case .disputes: "disputes"
        case .failedPayments: "failed_payments"
        case .inGraceEnd: "in_grace_end"
        }
    }

    func value(_ row: RevenueReportRow) -> Int64 {
        switch self {
        case .mrrStart: row.mrrStart
        case .newMRR: row.newMRR
        case .expansionMRR: row.expansionMRR
        case .contractionMRR: row.contractionMRR
        case .churnedMRR: row.churnedMRR
        case .reactivationMRR: row.reactivationMRR
        case .mrrEnd: row.mrrEnd
        case .activeSubscribersStart: Int64(row.activeSubscribersStart)
        case .activeSubscribersEnd: Int64(row.activeSubscribersEnd)
        case .unknownIntervalEnd: Int64(row.unknownIntervalEnd)
        case .trialingEnd: Int64(row.trialingEnd)
        case .newSubscriptions: Int64(row.newSubscriptions)
        case .churnedSubscriptions: Int64(row.churnedSubscriptions)
        case .trialStarts: Int64(row.trialStarts)
        case .trialConversions: Int64(row.trialConversions)
        case .refunds: Int64(row.refunds)
        case .refundedAmount: row.refundedAmount
        case .disputes: Int64(row.disputes)
        case .failedPayments: Int64(row.failedPayments)
        case .inGraceEnd: Int64(row.inGraceEnd)
        }
    }

    /// For people: money in the currency's format, counts as they are.
    func display(_ row: RevenueReportRow) -> String {
        isMoney ? MoneyFormatter.format(minorUnits: value(row), currency: row.currency) : String(value(row))
    }
}
