import Foundation

/// One bucket's figures for one campaign tag (a checkout's `ref`, the
/// hosted paywall's `/paywall?ref=<tag>`), over every provider: checkouts
/// have no currency, so only the MRR figure is split by currency (never
/// summed across them). Definitions: docs/revenue.md, "By campaign".
public struct CampaignReportRow: Sendable, Hashable, Codable {
    public var periodStart: Date
    public var periodEnd: Date
    /// The checkouts' tag; nil for checkouts opened without one.
    public var ref: String?

    /// Checkouts with this tag opened in the bucket.
    public var checkoutsOpened = 0
    /// Checkouts with this tag completed in the bucket (whenever opened).
    public var checkoutsCompleted = 0
    /// Subscriptions from this tag's checkouts first seen in the bucket (trials included), as ``RevenueReportRow/newSubscriptions`` counts them.
    public var newSubscriptions = 0
    /// One-time purchases (orders that are no subscription's payment) from this tag's checkouts, paid in the bucket.
    public var oneTimePurchases = 0
    /// The `new` MRR movement of this tag's subscriptions in the bucket
    /// (``RevenueReportRow/newMRR``), per currency, minor units a month;
    /// only currencies with some.
    public var newMRR: [String: Int64] = [:]

    public init(periodStart: Date, periodEnd: Date, ref: String?) {
        self.periodStart = periodStart
        self.periodEnd = periodEnd
        self.ref = ref
    }

    /// Nothing to show.
    var isEmpty: Bool { checkoutsOpened == 0 && checkoutsCompleted == 0 && newSubscriptions == 0 && oneTimePurchases == 0 && newMRR.isEmpty }
}
