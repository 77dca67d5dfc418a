import Foundation
import BillingModel

/// The seller's figures for a period, per bucket, provider and currency,
/// computed from subscription histories and the money that went back.
/// Pure: the CLI reads the log (``RevenueLog``) and renders the rows.
public enum RevenueReport {
    /// - Parameters:
    ///   - asOf: figures stop here (now, for a period that has not ended):
    ///     nothing after it is known, so nothing after it is counted.
    /// - Returns: rows ordered by bucket, provider, currency; a group with
    ///   nothing to show in the whole period is left out.
    public static func build(
        histories: [SubscriptionRevenueHistory], returns: [MoneyReturn], period: ReportPeriod, asOf: Date
    ) -> [RevenueReportRow] {
        var rows: [RowKey: RevenueReportRow] = [:]
        func row(_ bucket: DateInterval, _ provider: Provider, _ currency: String) -> RowKey {
            let key = RowKey(start: bucket.start, provider: provider, currency: currency)
            if rows[key] == nil {
                rows[key] = RevenueReportRow(periodStart: bucket.start, periodEnd: bucket.end, provider: provider, currency: currency)
            }
            return key
        }
        let buckets = period.buckets(upTo: asOf)
        for history in histories {
            let points = collapsed(history.points)
            for bucket in buckets {
                rows[row(bucket, history.provider, history.currency)]?.tally(points, in: bucket)
            }
        }
        for money in returns {
            guard let bucket = buckets.first(where: { $0.start <= money.at && money.at < $0.end }) else { continue }
            let key = row(bucket, money.provider, money.currency)
            switch money.kind {
            case .refund:
                rows[key]?.refunds += 1
                if let refunded = rows[key]?.refundedAmount { rows[key]?.refundedAmount = refunded.addingSaturating(money.amount) }
            case .dispute:
                rows[key]?.disputes += 1
            }
        }
        // A provider and currency with nothing in any bucket is left out; one
        // with something keeps every bucket, so its series has no gaps.
        let groupsWithSomething = Set(rows.filter { !$0.value.isEmpty }.map { $0.key.group })
        return rows.filter { groupsWithSomething.contains($0.key.group) }.sorted { $0.key < $1.key }.map(\.value)
    }

    /// A row's place: its bucket, provider and currency, in report order.
    struct RowKey: Hashable, Comparable {
        var start: Date
        var provider: Provider
        var currency: String
        var group: String { "\(provider.rawValue) \(currency)" }
        static func < (a: Self, b: Self) -> Bool { (a.start, a.provider.rawValue, a.currency) < (b.start, b.provider.rawValue, b.currency) }
    }

    /// Points at the same instant become the last of them (one change at
    /// that moment, not a churn and a new one), keeping their failures.
    static func collapsed(_ points: [RevenuePoint]) -> [RevenuePoint] {
        var result: [RevenuePoint] = []
        for point in points {
            if let last = result.last, last.at == point.at {
                var merged = point
                merged.failedPayments += last.failedPayments
                result[result.count - 1] = merged
            } else {
                result.append(point)
            }
        }
        return result
    }
}
