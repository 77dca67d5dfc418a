import Foundation
import BillingModel

/// One bucket's figures for one provider and currency (currencies are never
/// summed). Amounts are minor units; MRR figures are a month's worth.
/// Definitions: docs/revenue.md.
public struct RevenueReportRow: Sendable, Hashable, Codable {
    public var periodStart: Date
    public var periodEnd: Date
    public var provider: Provider
    public var currency: String

    public var mrrStart: Int64 = 0
    public var mrrEnd: Int64 = 0
    public var newMRR: Int64 = 0
    public var expansionMRR: Int64 = 0
    /// Positive: the amount MRR went down by downgrades.
    public var contractionMRR: Int64 = 0
    /// Positive: the amount MRR lost to subscriptions that stopped paying.
    public var churnedMRR: Int64 = 0
    public var reactivationMRR: Int64 = 0

    /// Paying subscriptions at the bucket's start and end (also those of unknown interval).
    public var activeSubscribersStart = 0
    public var activeSubscribersEnd = 0
    /// Paying at the end with no price from any event or the catalog: not in MRR.
    public var unknownIntervalEnd = 0
    public var trialingEnd = 0
    /// Subscriptions first seen in the bucket (trials included).
    public var newSubscriptions = 0
    /// Subscriptions that stopped paying in the bucket.
    public var churnedSubscriptions = 0
    public var trialStarts = 0
    /// Trials that became paying in the bucket.
    public var trialConversions = 0
    public var refunds = 0
    public var refundedAmount: Int64 = 0
    public var disputes = 0
    public var failedPayments = 0
    /// Paying at the end with a failed renewal the provider still retries.
    public var inGraceEnd = 0

    public init(periodStart: Date, periodEnd: Date, provider: Provider, currency: String) {
        self.periodStart = periodStart
        self.periodEnd = periodEnd
        self.provider = provider
        self.currency = currency
    }

    /// mrrStart + the movements: equals ``mrrEnd`` by construction (a check, and a test).
    public var mrrStartPlusMovements: Int64 {
        mrrStart.addingSaturating(newMRR).addingSaturating(expansionMRR).addingSaturating(reactivationMRR)
            .subtractingSaturating(contractionMRR).subtractingSaturating(churnedMRR)
    }

    mutating func add(_ movement: MRRMovement, _ change: Int64) {
        switch movement {
        case .new: newMRR = newMRR.addingSaturating(change)
        case .expansion: expansionMRR = expansionMRR.addingSaturating(change)
        case .contraction: contractionMRR = contractionMRR.subtractingSaturating(change)
        case .churn: churnedMRR = churnedMRR.subtractingSaturating(change)
        case .reactivation: reactivationMRR = reactivationMRR.addingSaturating(change)
        }
    }
}
