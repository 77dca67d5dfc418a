import Foundation

/// How one subscription's history adds to a bucket's figures (docs/revenue.md, "Definitions").
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
        mrrStart = mrrStart.addingSaturating(before?.mrr ?? 0)
        if let atEnd {
            mrrEnd = mrrEnd.addingSaturating(atEnd.mrr)
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
