import Foundation
import Models

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
        var rows: [String: RevenueReportRow] = [:]
        func row(_ bucket: DateInterval, _ provider: Provider, _ currency: String) -> String {
            let key = "\(bucket.start.timeIntervalSince1970) \(provider.rawValue) \(currency)"
            if rows[key] == nil {
                rows[key] = RevenueReportRow(periodStart: bucket.start, periodEnd: bucket.end, provider: provider, currency: currency)
            }
            return key
        }
        let buckets = period.buckets.compactMap { bucket -> DateInterval? in
            bucket.start < asOf ? DateInterval(start: bucket.start, end: min(bucket.end, asOf)) : nil
        }
        for history in histories {
            let points = collapsed(history.points)
            for bucket in buckets {
                let key = row(bucket, history.provider, history.currency)
                rows[key]?.tally(points, in: bucket)
            }
        }
        for money in returns {
            guard let bucket = buckets.first(where: { $0.start <= money.at && money.at < $0.end }) else { continue }
            let key = row(bucket, money.provider, money.currency)
            switch money.kind {
            case .refund:
                rows[key]?.refunds += 1
                rows[key]?.refundedAmount += money.amount
            case .dispute:
                rows[key]?.disputes += 1
            }
        }
        let groupsWithSomething = Set(rows.values.filter { !$0.isEmpty }.map { "\($0.provider.rawValue) \($0.currency)" })
        return rows.values.filter { groupsWithSomething.contains("\($0.provider.rawValue) \($0.currency)") }.sorted {
            ($0.periodStart, $0.provider.rawValue, $0.currency) < ($1.periodStart, $1.provider.rawValue, $1.currency)
        }
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

extension RevenueReportRow {
    /// Nothing to show: no MRR, subscriber, trial or money figure.
    var isEmpty: Bool {
        mrrStart == 0 && mrrEnd == 0 && activeSubscribersStart == 0 && activeSubscribersEnd == 0 && trialingEnd == 0
            && newSubscriptions == 0 && churnedSubscriptions == 0 && trialStarts == 0 && refunds == 0 && disputes == 0
            && failedPayments == 0 && newMRR == 0 && reactivationMRR == 0
    }

    /// Adds one subscription's figures for `bucket` (`[start, end)`; the
    /// standing "at the end" is the one just before `end`).
    mutating func tally(_ points: [RevenuePoint], in bucket: DateInterval) {
        guard let first = points.first, first.at < bucket.end else { return }
        let before = points.last { $0.at < bucket.start }
        let atEnd = points.last { $0.at < bucket.end }
        if let before, before.paying { activeSubscribersStart += 1 }
        mrrStart += before?.mrr ?? 0
        if let atEnd {
            mrrEnd += atEnd.mrr
            if atEnd.paying { activeSubscribersEnd += 1 }
            if atEnd.paying, atEnd.price == nil { unknownIntervalEnd += 1 }
            if atEnd.trialing { trialingEnd += 1 }
            if atEnd.paying, atEnd.inGrace { inGraceEnd += 1 }
        }
        if first.at >= bucket.start, first.at < bucket.end { newSubscriptions += 1 }

        var previous: RevenuePoint? = nil
        var hadRevenue = false
        var everTrialed = false
        for point in points {
            defer {
                if point.mrr > 0 { hadRevenue = true }
                if point.trialing { everTrialed = true }
                previous = point
            }
            guard point.at >= bucket.start else { continue }
            guard point.at < bucket.end else { break }
            failedPayments += point.failedPayments
            let was = previous
            if point.trialing, !everTrialed { trialStarts += 1 }
            if let was, was.trialing, point.paying { trialConversions += 1 }
            if was?.paying == true, !point.paying { churnedSubscriptions += 1 }
            let from = was?.mrr ?? 0
            if let movement = MRRMovement.classify(from: from, to: point.mrr, hadRevenueBefore: hadRevenue) {
                add(movement, MRRMovement.signed(from: from, to: point.mrr))
            }
        }
    }
}
