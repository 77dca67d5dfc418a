import Timing
import Foundation

/// When each of this run's events was received and applied, read back from
/// `billing_events` (`received_at`: the receiver's clock when the stored
/// delivery arrived; `applied_at`: the start of the projector transaction
/// that stored it), in seconds since the run's start.
struct AppliedEvent: Sendable {
    let received: Double
    let applied: Double
    var latency: Double { applied - received }
}

/// Prints the chaos run: what happened when, each fault and how the stack
/// recovered, what the providers saw, a per-second timeline, and the checks.
struct ChaosReport {
    var options: ScaleDemoOptions
    var total: Int
    var progress: SendProgress
    var samples: [LagSample]
    var unreadable: [Double]
    var events: [(time: Double, text: String)]
    var faults: [FaultRecord]
    var applied: [AppliedEvent]
    var sendSeconds: Double
    var drainSeconds: Double?
    var duplicatesAbsorbed: Int?
    var checks: ProjectionCheck.Result?
    var problems: [String]
    /// The services after the run: readiness, the reconciler's figures.
    var services: [String] = []
    /// An event applied later than this after its receipt counts as delayed:
    /// twice the 99th percentile before the first fault (how long events
    /// take on this machine, under this load), and at least 2 s.
    var delayedAfter: Double {
        let before = faults.first?.start ?? .infinity
        // Applied before it too: an event caught by the first fault is not the steady state.
        let steady = applied.filter { $0.applied < before }.map(\.latency).sorted()
        guard !steady.isEmpty else { return 2 }
        return max(2, 2 * steady[min(steady.count - 1, Int(Double(steady.count) * 0.99))])
    }

    var passed: Bool { problems.isEmpty && (checks?.passed ?? false) }

    private func fmt(_ value: Double) -> String { String(format: "%.1f", value) }

    func render() -> String {
        var out: [String] = ["", "== Storefront chaos run =="]
        out.append(
            "plan:               \(total) signed Lemon Squeezy webhooks for \(options.subscriptions) subscriptions through the gateway, "
                + "\(Int(options.rate))/s, at most \(options.concurrency) in flight; faults \(ChaosFault.describe(options.faults)), "
                + "freezes of \(String(format: "%g", options.freezeSeconds.inSeconds)) s")
        out.append("")
        out.append(contentsOf: delivery())
        out.append("")
        out.append("what happened when (seconds since the first webhook):")
        for event in events { out.append(String(format: "  %7.1f  ", event.time) + event.text) }
        out.append("")
        out.append(
            "faults and recovery (a delayed event: applied more than \(fmt(delayedAfter)) s after its receipt, twice the "
                + "99th percentile before the first fault, at least 2 s):")
        for fault in faults { out.append(contentsOf: describe(fault)) }
        out.append("")
        out.append(contentsOf: timeline())
        out.append("")
        if !services.isEmpty {
            out.append("services after the run:")
            out.append(contentsOf: services.map { "  " + $0 })
            out.append("")
        }
        out.append("checks against PostgreSQL (every webhook the providers consider delivered, i.e. answered 2xx):")
        if let checks {
            out.append("  lost: \(checks.missing), applied twice: \(checks.duplicated), subscriptions not in their final state: \(checks.notFinal)")
            for line in checks.lines { out.append("  [\(line.passed ? "ok" : "FAIL")] \(line.text)") }
        }
        for problem in problems { out.append("  [FAIL] \(problem)") }
        out.append(passed ? "RESULT: PASS" : "RESULT: FAIL")
        return out.joined(separator: "\n")
    }

    /// What the providers saw.
    func delivery() -> [String] {
        let answers = progress.answers
        let ok = answers.filter { (200..<300).contains($0.key) }.values.reduce(0, +)
        let unavailable = answers[503] ?? 0
        let others = answers.filter { !(200..<300).contains($0.key) && $0.key != 503 }.sorted { $0.key < $1.key }
        let otherText = others.isEmpty ? "none" : others.map { "\($0.value) × \($0.key)" }.joined(separator: ", ")
        var lines = [
            "webhooks sent:      \(total); delivered (answered 2xx): \(progress.acknowledged); never delivered: \(total - progress.acknowledged)",
            "answers:            \(ok) × 2xx, \(unavailable) × 503, other non-2xx: \(otherText), \(progress.transportErrors) without an answer",
            "retries:            \(progress.retries503 + progress.retriesOther) (\(progress.retries503) after 503, \(progress.retriesOther) after other answers or none) "
                + "for \(progress.retriedWebhooks) webhooks; at most \(progress.mostAttempts) attempts, slowest delivery \(fmt(progress.slowestDelivery)) s "
                + "(retry deadline \(Int(options.retryDeadline.inSeconds)) s)",
            "sending:            \(fmt(sendSeconds)) s for all \(total) webhooks",
        ]
        if let drainSeconds {
            lines.append("caught up:          \(fmt(drainSeconds)) s (every acknowledged webhook in PostgreSQL, group lag 0)")
        } else {
            lines.append("caught up:          NOT within the drain timeout (\(options.drainTimeout))")
        }
        if let duplicatesAbsorbed {
            lines.append(
                "redeliveries:       \(duplicatesAbsorbed) records read again and absorbed as duplicates (metrics of the projectors still running)")
        }
        if !unreadable.isEmpty {
            lines.append(
                "lag readings:       \(unreadable.count) failed (the broker did not answer within 2 s; a span with one never counts as recovered)")
        }
        return lines
    }

    func describe(_ fault: FaultRecord) -> [String] {
        let nextStart = faults.first { $0.number == fault.number + 1 }?.start ?? .infinity
        let windowEnd = min(nextStart, max(fault.recoveredAt ?? fault.end, fault.end) + 1)
        var lines = ["  \(fault.number). \(fault.title): \(fmt(fault.start))–\(fmt(fault.end)) s"]
        if let failure = fault.failure { lines.append("     FAILED: \(failure)") }

        let answers = sum(from: fault.start, to: windowEnd)
        lines.append(
            "     answered meanwhile (until recovered): \(answers.succeeded) × 2xx, \(answers.unavailable) × 503, "
                + "\(answers.otherStatus) other non-2xx, \(answers.transportErrors) without an answer")
        if fault.fault.kind == .freeze, let accepted = RecoveryRule.firstSuccess(progress.buckets, after: fault.end) {
            lines.append("     webhooks accepted again \(fmt(accepted - fault.end)) s after SIGCONT")
        }
        if let gap = longestGap(from: fault.start, to: min(windowEnd, sendSeconds)) {
            lines.append("     longest time without any 2xx: \(fmt(gap)) s")
        }
        let window = samples.filter { $0.time >= fault.start - options.stallThreshold.inSeconds && $0.time < windowEnd }
        if let peak = window.map(\.lag).max() { lines.append("     consumer lag peak: \(peak)") }
        let stalls = RebalanceAnalysis.analyse(samples: window, killTime: fault.start, threshold: options.stallThreshold.inSeconds)
        if let last = stalls.stalls.map(\.to).max() {
            let worst = stalls.stalls.map(\.length).max() ?? 0
            let partitions = Set(stalls.stalls.map(\.partition)).count
            lines.append(
                "     commits stalled on \(partitions) partition(s), up to \(fmt(worst)) s; every partition committing again "
                    + "\(fmt(last - fault.end)) s after the fault ended")
        } else {
            lines.append("     no partition stopped committing for \(fmt(options.stallThreshold.inSeconds)) s or more")
        }
        let threshold = delayedAfter
        let settled = min(nextStart, (fault.recoveredAt ?? fault.end) + options.settle.inSeconds + 1)
        let touched = applied.filter { $0.applied >= fault.start && $0.applied < settled }
        let delayed = touched.filter { $0.latency > threshold }
        if let worst = delayed.map(\.latency).max(), let last = delayed.map(\.applied).max() {
            lines.append(
                "     \(delayed.count) events applied more than \(fmt(threshold)) s after their receipt (worst \(fmt(worst)) s); "
                    + "the last at \(fmt(last)) s, \(fmt(last - fault.end)) s after the fault ended")
        } else {
            lines.append("     every event applied within \(fmt(threshold)) s of its receipt")
        }
        if fault.fault.kind == .postgres || fault.fault.kind == .kill,
            let before = fault.batchFailures.before, let after = fault.batchFailures.after, after > before
        {
            lines.append("     projector batches that failed and were retried: \(after - before)")
        }
        if let recovered = fault.recoveredAt {
            lines.append("     RECOVERED \(fmt(recovered - fault.end)) s after the fault ended (\(fmt(recovered - fault.start)) s after it began)")
        } else {
            lines.append("     NOT RECOVERED within \(options.recoveryTimeout)")
        }
        return lines
    }

    func sum(from: Double, to: Double) -> SendProgress.Bucket {
        let buckets = progress.buckets
        var total = SendProgress.Bucket()
        let first = max(0, Int(from / SendProgress.bucketSeconds))
        let last = min(buckets.count, Int((to / SendProgress.bucketSeconds).rounded(.up)))
        guard first < last else { return total }
        for bucket in buckets[first..<last] {
            total.succeeded += bucket.succeeded
            total.unavailable += bucket.unavailable
            total.otherStatus += bucket.otherStatus
            total.transportErrors += bucket.transportErrors
        }
        return total
    }

    /// The longest run of 100 ms slices in [from, to) without a 2xx, in seconds (nil when under one slice).
    func longestGap(from: Double, to: Double) -> Double? {
        let buckets = progress.buckets
        let first = max(0, Int(from / SendProgress.bucketSeconds))
        let last = min(buckets.count, Int(to / SendProgress.bucketSeconds))
        guard first < last else { return nil }
        var longest = 0, current = 0
        for bucket in buckets[first..<last] {
            current = bucket.succeeded > 0 ? 0 : current + 1
            longest = max(longest, current)
        }
        return longest > 0 ? Double(longest) * SendProgress.bucketSeconds : nil
    }

    static func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// One row per second.
    func timeline() -> [String] {
        let buckets = progress.buckets
        let perSecond = Int((1 / SendProgress.bucketSeconds).rounded())
        let end = max(Double(buckets.count) * SendProgress.bucketSeconds, samples.last?.time ?? 0, applied.map(\.applied).max() ?? 0)
        var appliedPerSecond: [Int: (count: Int, worst: Double)] = [:]
        for event in applied {
            let second = Int(event.applied.rounded(.down))
            let current = appliedPerSecond[second] ?? (0, 0)
            appliedPerSecond[second] = (current.count + 1, max(current.worst, event.latency))
        }
        var marks: [Int: [String]] = [:]
        for event in events { marks[Int(event.time.rounded(.down)), default: []].append(event.text) }
        var rows = [
            "timeline, one row per second: webhooks answered 2xx / 503 / other (non-2xx or no answer), consumer lag",
            "(acknowledged minus committed; ? = the broker did not answer), events applied to PostgreSQL and the",
            "longest receipt-to-applied time among them:",
            "     t    2xx   503  other      lag  applied  latency",
        ]
        var second = 0
        while Double(second) <= end {
            var row = SendProgress.Bucket()
            let first = second * perSecond
            if first < buckets.count {
                for bucket in buckets[first..<min(buckets.count, first + perSecond)] {
                    row.succeeded += bucket.succeeded
                    row.unavailable += bucket.unavailable
                    row.otherStatus += bucket.otherStatus
                    row.transportErrors += bucket.transportErrors
                }
            }
            let inSecond = samples.filter { $0.time >= Double(second) && $0.time < Double(second + 1) }
            let lag: String
            if let last = inSecond.last {
                lag = String(last.lag)
            } else if unreadable.contains(where: { $0 > Double(second - 2) && $0 < Double(second + 1) }) {
                lag = "?"
            } else {
                lag = ""
            }
            let appliedHere = appliedPerSecond[second]
            var line =
                String(format: "%6d  %5d %5d  %5d", second, row.succeeded, row.unavailable, row.otherStatus + row.transportErrors)
                + "  " + Self.pad(lag, 7) + "  " + Self.pad(appliedHere.map { String($0.count) } ?? "0", 7)
                + "  " + Self.pad(appliedHere.map { fmt($0.worst) + "s" } ?? "", 7)
            if let notes = marks[second] { line += "  <- " + notes.joined(separator: "; ") }
            rows.append(line)
            second += 1
        }
        return rows
    }
}
