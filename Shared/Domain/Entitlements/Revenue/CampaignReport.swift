import Foundation
import BillingModel

/// The report by campaign: per bucket and checkout `ref`, the checkouts
/// opened and completed, and the new subscriptions, one-time purchases and
/// new MRR of the purchases those checkouts made. Pure: the log and the
/// checkouts are read by `CampaignLog` (ProjectionStore).
///
/// The subscription figures are the revenue report's own
/// (``RevenueReport/build(histories:returns:period:asOf:)`` over each tag's
/// subscriptions), so a campaign's new MRR is counted by the same rules,
/// in the same bucket, as the report's `new_mrr`.
public enum CampaignReport {
    /// One bucket's counts of one tag, as the checkouts and orders tables give them.
    public struct Counts: Sendable, Hashable {
        public var periodStart: Date
        public var ref: String?
        public var checkoutsOpened = 0
        public var checkoutsCompleted = 0
        public var oneTimePurchases = 0

        public init(periodStart: Date, ref: String?, checkoutsOpened: Int = 0, checkoutsCompleted: Int = 0, oneTimePurchases: Int = 0) {
            self.periodStart = periodStart
            self.ref = ref
            self.checkoutsOpened = checkoutsOpened
            self.checkoutsCompleted = checkoutsCompleted
            self.oneTimePurchases = oneTimePurchases
        }
    }

    /// A checkout that made a subscription, as the links read it: the
    /// subscription's own events name the checkout, or (``throughCard``,
    /// Paystack) the checkout's charge and the subscription share their card
    /// authorization and customer.
    public struct Link: Sendable, Hashable {
        public var provider: Provider
        public var subscriptionID: String
        public var checkoutID: String
        public var ref: String?
        /// When the checkout was opened.
        public var openedAt: Date
        public var throughCard: Bool

        public init(provider: Provider, subscriptionID: String, checkoutID: String, ref: String?, openedAt: Date, throughCard: Bool) {
            self.provider = provider
            self.subscriptionID = subscriptionID
            self.checkoutID = checkoutID
            self.ref = ref
            self.openedAt = openedAt
            self.throughCard = throughCard
        }
    }

    /// - Parameters:
    ///   - counts: per bucket (its start) and tag; several entries of one add up.
    ///   - links: the checkouts that made subscriptions (``attribute(_:histories:)`` picks one per subscription).
    ///   - histories: the linked subscriptions' revenue histories (others are ignored).
    ///   - asOf: figures stop here, as the revenue report's do.
    /// - Returns: rows ordered by bucket, then tag (untagged last); a tag
    ///   with nothing in the whole period is left out, one with something
    ///   keeps every bucket.
    public static func build(
        counts: [Counts], links: [Link], histories: [SubscriptionRevenueHistory], period: ReportPeriod, asOf: Date
    ) -> [CampaignReportRow] {
        let buckets = period.buckets(upTo: asOf)
        var rows: [Key: CampaignReportRow] = [:]
        func add(_ start: Date, _ ref: String?, _ change: (inout CampaignReportRow) -> Void) {
            guard let bucket = buckets.first(where: { $0.start == start }) else { return }
            let key = Key(start: start, ref: ref)
            var row = rows[key] ?? CampaignReportRow(periodStart: bucket.start, periodEnd: bucket.end, ref: ref)
            change(&row)
            rows[key] = row
        }
        for count in counts {
            add(count.periodStart, count.ref) {
                $0.checkoutsOpened += count.checkoutsOpened
                $0.checkoutsCompleted += count.checkoutsCompleted
                $0.oneTimePurchases += count.oneTimePurchases
            }
        }
        for (ref, histories) in attribute(links, histories: histories) {
            for revenue in RevenueReport.build(histories: histories, returns: [], period: period, asOf: asOf) {
                add(revenue.periodStart, ref) {
                    $0.newSubscriptions += revenue.newSubscriptions
                    if revenue.newMRR != 0 { $0.newMRR[revenue.currency, default: 0] += revenue.newMRR }
                }
            }
        }
        let refs = Set(rows.values.filter { !$0.isEmpty }.map(\.ref))
        var result: [CampaignReportRow] = []
        for bucket in buckets {
            for ref in refs.sorted(by: Key.precedes) {
                result.append(
                    rows[Key(start: bucket.start, ref: ref)] ?? CampaignReportRow(periodStart: bucket.start, periodEnd: bucket.end, ref: ref))
            }
        }
        return result
    }

    /// Each linked subscription under the tag of one checkout, so no
    /// subscription counts twice: a checkout its own events name before one
    /// linked by card; among several, the latest opened at or before the
    /// subscription's first event (a customer who pays two checkouts with one
    /// card has two subscriptions with the same authorization: each goes to
    /// the checkout opened for it), else the earliest opened; then by checkout id.
    /// - Returns: the histories by tag (nil: checkouts without one).
    public static func attribute(_ links: [Link], histories: [SubscriptionRevenueHistory]) -> [String?: [SubscriptionRevenueHistory]] {
        let linksBySubscription = Dictionary(grouping: links) { "\($0.provider.rawValue) \($0.subscriptionID)" }
        var result: [String?: [SubscriptionRevenueHistory]] = [:]
        for history in histories {
            guard let candidates = linksBySubscription["\(history.provider.rawValue) \(history.subscriptionID)"] else { continue }
            let began = history.points.first?.at
            let chosen = candidates.min { a, b in
                func rank(_ link: Link) -> (Int, Int, TimeInterval, String) {
                    let before = began.map { link.openedAt <= $0 } ?? false
                    let time = link.openedAt.timeIntervalSinceReferenceDate
                    // Opened before it began: the latest first; otherwise the earliest first.
                    return (link.throughCard ? 1 : 0, before ? 0 : 1, before ? -time : time, link.checkoutID)
                }
                return rank(a) < rank(b)
            }
            if let chosen { result[chosen.ref, default: []].append(history) }
        }
        return result
    }

    struct Key: Hashable {
        var start: Date
        var ref: String?

        /// Tags in text order, checkouts without one last.
        static func precedes(_ a: String?, _ b: String?) -> Bool {
            switch (a, b) {
            case let (a?, b?): a < b
            case (.some, nil): true
            case (nil, _): false
            }
        }
    }
}
