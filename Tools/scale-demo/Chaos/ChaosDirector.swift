import Timing
import Foundation
import Synchronization

/// What one fault did, as the director saw it (times in seconds since the start).
struct FaultRecord: Sendable {
    let number: Int
    let fault: ChaosFault
    var title: String
    /// When the fault began (the signal sent, the restart asked for).
    var start: Double
    /// When its action was over: SIGCONT sent, the replacement or the
    /// restarted process ready, PostgreSQL accepting connections again.
    var end: Double
    /// When the stack counted as recovered (see ``RecoveryRule``); nil: not within the recovery timeout.
    var recoveredAt: Double?
    /// `projector_batch_failures_total` over the running projectors, before and after.
    var batchFailures: (before: Int?, after: Int?) = (nil, nil)
    var failure: String?
}

/// The run's log: events in time order and the faults' records.
final class ChaosLog: Sendable {
    private struct State {
        var events: [(time: Double, text: String)] = []
        var faults: [FaultRecord] = []
        var problems: [String] = []
    }
    private let state = Mutex(State())

    var events: [(time: Double, text: String)] { state.withLock { $0.events.sorted { $0.time < $1.time } } }
    var faults: [FaultRecord] { state.withLock { $0.faults } }
    var problems: [String] { state.withLock { $0.problems } }

    func event(_ time: Double, _ text: String) {
        state.withLock { $0.events.append((time, text)) }
        DemoSession.say(String(format: "%7.1f s  ", time) + text)
    }
    func record(_ fault: FaultRecord) { state.withLock { $0.faults.append(fault) } }
    func problem(_ text: String) { state.withLock { $0.problems.append(text) } }
}

/// When a fault counts as recovered, from the lag samples and the answers
/// (the same rule the director waits on and the report prints):
///
/// the first moment after the fault ended from which, for `settle` seconds,
/// every lag reading succeeded, the lag (webhooks acknowledged minus records
/// the group committed) stayed at most `maxLag`, the group committed
/// something (or had nothing left: lag 0), and no partition with records
/// waiting (by the broker's watermark) went without a commit; and, unless
/// nothing was in flight, the gateway answered a webhook 2xx again.
struct RecoveryRule: Sendable {
    let settle: Double
    let maxLag: Int64

    func recoveredAt(
        samples: [LagSample], unreadable: [Double], buckets: [SendProgress.Bucket],
        after end: Double, nothingInFlight: Bool
    ) -> Double? {
        let window = samples.filter { $0.time >= end }
        guard let stable = stableStart(window, unreadable: unreadable) else { return nil }
        if nothingInFlight { return stable }
        guard let accepted = Self.firstSuccess(buckets, after: end) else { return nil }
        return max(stable, accepted)
    }

    private func stableStart(_ window: [LagSample], unreadable: [Double]) -> Double? {
        for first in window.indices {
            let from = window[first].time
            guard let last = window[first...].firstIndex(where: { $0.time >= from + settle }) else { return nil }
            let span = window[first...last]
            guard span.allSatisfy({ $0.lag <= maxLag }) else { continue }
            guard !unreadable.contains(where: { $0 >= from && $0 <= window[last].time }) else { continue }
            let advanced = window[last].committedDuringRun > window[first].committedDuringRun
            guard advanced || span.allSatisfy({ $0.lag == 0 }) else { continue }
            // A partition left behind (its owner gone, a rebalance not finished) while the others move on.
            let stuck = window[last].waiting.contains { partition, waiting in
                waiting > 0 && window[last].committed[partition] == window[first].committed[partition]
            }
            guard !stuck else { continue }
            return from
        }
        return nil
    }

    /// The start of the first 100 ms slice at or after `time` in which a webhook was answered 2xx.
    static func firstSuccess(_ buckets: [SendProgress.Bucket], after time: Double) -> Double? {
        let first = max(0, Int(time / SendProgress.bucketSeconds))
        guard first < buckets.count else { return nil }
        return buckets[first...].firstIndex { $0.succeeded > 0 }.map { max(time, Double($0) * SendProgress.bucketSeconds) }
    }
}

/// Runs the faults one after another while the sender sends: fault k begins
/// once the sender has started its share of the webhooks (`at`) and fault
/// k-1 has recovered; the sender waits at that point until fault k has
/// begun, so every fault meets traffic.
final class ChaosDirector: Sendable {
    let session: DemoSession
    let log: ChaosLog
    let actions: ChaosActions
    let failover: ProjectorFailover
    let rule: RecoveryRule
    let thresholds: [Int]
    /// Webhooks started so far (the sender raises it).
    private let sent = Beacon()
    /// Faults begun so far.
    private let begun = Beacon()

    init(session: DemoSession, log: ChaosLog) {
        let options = session.options
        self.session = session
        self.log = log
        actions = ChaosActions(stateDirectory: options.stateDirectory, stackScript: options.stackScript)
        failover = ProjectorFailover(stateDirectory: options.stateDirectory, stackScript: options.stackScript, victim: options.killProjector)
        rule = RecoveryRule(settle: options.settle.inSeconds, maxLag: max(Int64(options.rate), 50))
        thresholds = options.faults.map { $0.threshold(total: session.total) }
    }

    /// The sender's gate: webhook `index` starts once every fault due before it has begun.
    func gate(_ index: Int) async {
        let due = thresholds.filter { $0 <= index }.count
        if due > 0 { await begun.wait(until: due) }
    }

    /// The sender reports each webhook started.
    func started(_ index: Int) { sent.advance(to: index + 1) }

    /// Runs every fault; returns after the last one recovered (or its recovery timed out).
    func run() async {
        // Whatever happens, never leave the sender waiting at a gate.
        defer { begun.advance(to: Int.max) }
        for (offset, fault) in session.options.faults.enumerated() {
            await sent.wait(until: thresholds[offset])
            var record = FaultRecord(number: offset + 1, fault: fault, title: "", start: session.now(), end: session.now())
            record.batchFailures.before = await projectorBatchFailures()
            begun.advance(to: offset + 1)
            do {
                try await perform(&record)
            } catch {
                record.failure = "\(error)"
                log.problem("fault \(record.number) (\(fault.kind.rawValue)): \(error)")
                log.event(session.now(), "fault \(record.number) failed: \(error)")
            }
            record.recoveredAt = await waitForRecovery(after: record.end)
            if let recovered = record.recoveredAt {
                log.event(
                    recovered,
                    "fault \(record.number): recovered \(String(format: "%.1f", recovered - record.end)) s after it ended "
                        + "(lag ≤ \(rule.maxLag) for \(String(format: "%g", rule.settle)) s, committing, webhooks accepted)")
            } else {
                log.problem("fault \(record.number) (\(record.title)): not recovered within \(session.options.recoveryTimeout) of its end")
                log.event(session.now(), "fault \(record.number): NOT recovered within \(session.options.recoveryTimeout)")
            }
            record.batchFailures.after = await projectorBatchFailures()
            log.record(record)
        }
    }

    private func perform(_ record: inout FaultRecord) async throws {
        let options = session.options
        switch record.fault.kind {
        case .freeze:
            let seconds = options.freezeSeconds.inSeconds
            record.title = "broker frozen \(String(format: "%g", seconds)) s"
            let pid = try actions.brokerPID()
            try actions.send(SIGSTOP, to: pid, name: "tansu")
            record.start = session.now()
            log.event(record.start, "fault \(record.number): SIGSTOP broker (tansu, pid \(pid)) for \(String(format: "%g", seconds)) s")
            // Not cancellable: the broker must be continued whatever happens.
            let clock = ContinuousClock()
            let until = clock.now + options.freezeSeconds
            while clock.now < until { try? await Task.sleep(until: until, clock: clock) }
            try actions.send(SIGCONT, to: pid, name: "tansu")
            record.end = session.now()
            log.event(record.end, "fault \(record.number): SIGCONT broker")
        case .kill:
            let name = "subscription-projector-\(options.killProjector)"
            record.title = "SIGKILL \(name)"
            let pid = try failover.kill()
            record.start = session.now()
            log.event(record.start, "fault \(record.number): SIGKILL \(name) (pid \(pid)); starting a replacement")
            record.end = record.start
            let line = try await failover.startReplacement()
            record.end = session.now()
            record.title += ", replaced by \(line.split(separator: " ").first ?? "a new projector")"
            log.event(record.end, "fault \(record.number): \(line) ready")
        case .postgres:
            record.title = "PostgreSQL restarted"
            record.start = session.now()
            log.event(record.start, "fault \(record.number): restarting PostgreSQL (pg_ctl restart -m fast: connections dropped)")
            _ = try await actions.restartPostgres()
            record.end = session.now()
            log.event(record.end, "fault \(record.number): PostgreSQL accepting connections again")
        case .receiver:
            let name = "webhook-receiver-\(options.restartReceiver)"
            record.title = "\(name) restarted (SIGTERM, same port)"
            record.start = session.now()
            log.event(record.start, "fault \(record.number): SIGTERM \(name)")
            let (stopped, _) = try await actions.restartReceiver(options.restartReceiver)
            record.end = session.now()
            if let stopped { log.event(record.start + stopped, "fault \(record.number): \(name) exited (drained)") }
            log.event(record.end, "fault \(record.number): \(name) ready again on its port")
        }
    }

    /// Waits, at most the recovery timeout, for ``RecoveryRule`` to hold after `end`.
    private func waitForRecovery(after end: Double) async -> Double? {
        let clock = ContinuousClock()
        let deadline = clock.now + session.options.recoveryTimeout
        let progress = session.progress
        while clock.now < deadline {
            let idle = sent.value - progress.acknowledged - progress.failureCount <= 0
            if let at = rule.recoveredAt(
                samples: session.sampler.all, unreadable: session.sampler.unreadableTimes,
                buckets: progress.buckets, after: end, nothingInFlight: idle)
            {
                return at
            }
            try? await Task.sleep(for: .milliseconds(250))
        }
        return nil
    }

    private func projectorBatchFailures() async -> Int? {
        let current = (try? StackEnvironment.load(stateDirectory: session.options.stateDirectory)) ?? session.stack
        return await DemoSession.metricSum("projector_batch_failures_total", urls: current.projectorURLs, client: session.sender.client)
    }
}
