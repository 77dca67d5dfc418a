import Foundation

/// Prints the demo's results: throughput, lag over time, rebalance, checks.
struct DemoReport {
    var total: Int
    var subscriptions: Int
    var progress: SendProgress
    var samples: [LagSample]
    var sendSeconds: Double
    var drainSeconds: Double?
    var killTime: Double?
    var killedName: String?
    var replacement: (name: String, readyAt: Double)?
    var rebalance: RebalanceAnalysis?
    var duplicatesAbsorbed: Int?
    var checks: ProjectionCheck.Result?
    /// Where the missing webhooks are, when some are (``TopicAudit``).
    var audit: [String] = []
    var problems: [String]
    /// What the reconciler did meanwhile (its metrics), when the stack runs one.
    var reconciler: [String] = []

    func render() -> String {
        var out: [String] = []
        let fmt = { (value: Double) in String(format: "%.1f", value) }
        out.append("")
        out.append("== Storefront scale demo ==")
        out.append("webhooks sent:      \(progress.acknowledged) acknowledged of \(total) (\(subscriptions) subscriptions)")
        out.append("retries:            \(progress.retries503) after 503, \(progress.retriesOther) after other errors")
        out.append("send throughput:    \(Int(Double(total) / max(sendSeconds, 0.001))) webhooks/s through the gateway (\(fmt(sendSeconds)) s)")
        if let drainSeconds {
            out.append(
                "end-to-end:         \(Int(Double(total) / max(drainSeconds, 0.001))) events/s applied to PostgreSQL (all committed after \(fmt(drainSeconds)) s)"
            )
        } else {
            out.append("end-to-end:         the group did not catch up within the drain timeout")
        }
        out.append("peak consumption:   \(peakRate()) records/s committed (best 1 s window)")

        out.append("")
        out.append("consumer lag of group subscription-projector on storefront.webhooks.v1")
        out.append("(lag = webhooks acknowledged by the gateway - records committed by the group during the run)")
        out.append(contentsOf: lagTable())
        out.append("sparkline: " + sparkline())

        out.append("")
        if let killTime, let killedName {
            out.append(
                "failover:           SIGKILL \(killedName) at \(fmt(killTime)) s"
                    + (replacement.map { "; \($0.name) ready at \(fmt($0.readyAt)) s" } ?? ""))
            if let rebalance, let duration = rebalance.duration {
                out.append("rebalance:          \(fmt(duration)) s from the SIGKILL until every partition was committing again")
                let worst = Dictionary(grouping: rebalance.stalls, by: \.partition).mapValues { $0.map(\.length).max() ?? 0 }
                let stalls = worst.sorted { $0.key < $1.key }.map { "p\($0.key) \(fmt($0.value)) s" }.joined(separator: ", ")
                out.append("                    longest commit gap per stalled partition: \(stalls)")
                out.append("                    (measured from the group's committed offsets: a gap >= the stall threshold")
                out.append("                    that began around the kill; it covers the session timeout that expels")
                out.append("                    the dead member, the eager rebalance, and the new member's join)")
            } else {
                out.append("rebalance:          no partition stalled (the killed member's partitions resumed within the threshold)")
            }
            if let duplicatesAbsorbed {
                out.append(
                    "redeliveries:       \(duplicatesAbsorbed) records re-read after the failover and absorbed as duplicates (projector metrics)")
            }
        }
        if !reconciler.isEmpty {
            out.append("")
            out.append("reconciler (the demo's subscriptions exist only in its webhooks, so the sandbox answers 404:")
            out.append("not-found snapshots, which the projector counts and never applies):")
            out.append(contentsOf: reconciler.map { "  " + $0 })
        }
        out.append("")
        out.append("checks against PostgreSQL:")
        if let checks {
            for line in checks.lines { out.append("  [\(line.passed ? "ok" : "FAIL")] \(line.text)") }
        }
        for problem in problems { out.append("  [FAIL] \(problem)") }
        out.append(contentsOf: audit.map { "  " + $0 })
        out.append(passed ? "RESULT: PASS" : "RESULT: FAIL")
        return out.joined(separator: "\n")
    }

    var passed: Bool { problems.isEmpty && (checks?.passed ?? false) }

    /// One row per second: the last sample of each second.
    func lagTable() -> [String] {
        guard let last = samples.last else { return ["  (no samples)"] }
        let peak = max(1, samples.map(\.lag).max() ?? 1)
        var rows = ["     t  acknowledged  committed      lag"]
        var second = 0
        var index = 0
        while Double(second) <= last.time + 0.999 {
            while index + 1 < samples.count, samples[index + 1].time <= Double(second) + 0.001 { index += 1 }
            let sample = samples[index]
            let bar = String(repeating: "#", count: Int((Double(sample.lag) / Double(peak) * 40).rounded()))
            var note = ""
            if let killTime, Int(killTime) == second { note += "  <- SIGKILL \(killedName ?? "")" }
            if let replacement, Int(replacement.readyAt) == second { note += "  <- \(replacement.name) ready" }
            if let killTime, let duration = rebalance?.duration, Int(killTime + duration) == second { note += "  <- all partitions committing again" }
            rows.append(String(format: "%5ds  %12d  %9lld  %7lld  ", second, sample.acknowledged, sample.committedDuringRun, sample.lag) + bar + note)
            second += 1
        }
        return rows
    }

    func sparkline() -> String {
        let levels = Array("▁▂▃▄▅▆▇█")
        let peak = max(1, samples.map(\.lag).max() ?? 1)
        guard let last = samples.last else { return "" }
        var text = ""
        var index = 0
        var second = 0
        while Double(second) <= last.time + 0.999 {
            while index + 1 < samples.count, samples[index + 1].time <= Double(second) + 0.001 { index += 1 }
            text.append(levels[min(levels.count - 1, Int(Double(samples[index].lag) / Double(peak) * Double(levels.count - 1) + 0.5))])
            second += 1
        }
        return text + "  (one mark per second, peak \(peak))"
    }

    func peakRate() -> Int {
        var best = 0.0
        var start = 0
        for end in samples.indices {
            while start < end, samples[end].time - samples[start].time > 1.0 { start += 1 }
            let span = samples[end].time - samples[start].time
            guard span >= 0.5 else { continue }
            best = max(best, Double(samples[end].committedDuringRun - samples[start].committedDuringRun) / span)
        }
        return Int(best)
    }
}
