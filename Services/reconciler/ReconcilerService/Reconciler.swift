import Timing
import Foundation
import HTTPClient
import BillingModel
import Providers
import Synchronization
import Telemetry

/// Fetches the objects records touch and publishes their snapshots.
///
/// Requests go into a ``ReconcileQueue`` (coalescing, one fetch per object
/// at a time); a scheduler starts due fetches, at most
/// ``ReconcilerConfiguration/fetchConcurrency`` at once (each provider's
/// request budget paces them further). A fetch that fails for a reason
/// waiting may cure is parked and retried with jittered backoff (honouring
/// the provider's `Retry-After`); its batch ticket is released, so a
/// provider outage delays snapshots but never holds the partition. A
/// snapshot whose publication fails is published again (not refetched) until
/// the broker takes it; until then its batch is not committed.
public final class Reconciler: Sendable {
    let source: any SnapshotSource
    let publisher: any SnapshotPublisher
    let metrics: ReconcilerMetrics
    let health: ProviderHealth
    let configuration: ReconcilerConfiguration
    let logger: Logger
    /// Called with ticket units whose records are dealt with (published or parked).
    let settle: @Sendable ([Int]) -> Void
    private let queue: Mutex<ReconcileQueue>
    private let doorbell = Doorbell()
    private let running = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)
    private let retryPolicy: RetryPolicy

    public init(
        source: any SnapshotSource, publisher: any SnapshotPublisher, metrics: ReconcilerMetrics, health: ProviderHealth,
        configuration: ReconcilerConfiguration, logger: Logger, settle: @escaping @Sendable ([Int]) -> Void = { _ in }
    ) {
        self.source = source
        self.publisher = publisher
        self.metrics = metrics
        self.health = health
        self.configuration = configuration
        self.logger = logger
        self.settle = settle
        queue = Mutex(ReconcileQueue(coalesceWindow: configuration.coalesceWindow.inSeconds, maxPending: configuration.maxPending))
        // The same jittered backoff the HTTP client uses, on the reconciler's scale.
        retryPolicy = RetryPolicy(baseDelay: configuration.retryInitialDelay, maxDelay: configuration.retryMaxDelay)
        metrics.registry.onCollect { [weak self] in
            guard let self else { return }
            let (counts, oldest) = self.queue.withLock { ($0.counts, $0.oldestUnreconciledWebhook) }
            metrics.pending("waiting").set(Double(counts.waiting))
            metrics.pending("in_flight").set(Double(counts.inFlight))
            metrics.pending("parked").set(Double(counts.parked))
            metrics.oldestUnreconciledWebhook.set(oldest.map { max(0, Date().timeIntervalSince($0)) } ?? 0)
        }
        for provider in Provider.allCases {
            metrics.registry.onCollect { metrics.providerUp(provider).set(health.outage(provider) == nil ? 1 : 0) }
        }
    }

    /// Queues `requests`; each holds one unit of `ticket` until it is dealt with.
    public func submit(_ requests: [ReconcileRequest], ticket: Int?, now: Date = Date()) {
        var released: [Int] = []
        var dropped = 0
        queue.withLock { queue in
            for request in requests {
                switch queue.add(request, ticket: ticket, now: now) {
                case .queued, .coalesced: break
                case .parked:
                    metrics.releasedEarly("parked").increment()
                    if let ticket { released.append(ticket) }
                case .overdue:
                    metrics.releasedEarly("overdue").increment()
                    if let ticket { released.append(ticket) }
                case .dropped:
                    dropped += 1
                    if let ticket { released.append(ticket) }
                }
            }
        }
        if dropped > 0 {
            metrics.dropped("queue_full").increment(by: dropped)
            logger.warning("pending queue full; requests dropped (the next sweep covers them)", metadata: ["count": String(dropped)])
        }
        if !released.isEmpty { settle(released) }
        doorbell.ring()
    }

    /// Makes every waiting fetch due now (shutdown: no more coalescing or command delays).
    public func flush() {
        queue.withLock { $0.flush(now: Date()) }
        doorbell.ring()
    }

    /// Objects waiting, in flight and parked.
    public var counts: (waiting: Int, inFlight: Int, parked: Int) { queue.withLock { $0.counts } }

    /// Starts due fetches until ``stop()``. Fetches run in their own tasks, so
    /// cancelling this one does not abort them half way. Once a second it
    /// lets go of tickets held longer than ``ReconcilerConfiguration/maxCommitDelay``.
    public func run() async {
        var lastRelease = Date()
        while !stopped.load(ordering: .acquiring) {
            let now = Date()
            if now.timeIntervalSince(lastRelease) >= 1 {
                lastRelease = now
                let hold = configuration.maxCommitDelay.inSeconds
                let released = queue.withLock { $0.releaseHeld(now: now, maximumHold: hold) }
                if !released.isEmpty {
                    metrics.releasedEarly("overdue").increment(by: released.count)
                    logger.info(
                        "records committed before their snapshots (the provider budget is behind; a sweep covers them after a crash)",
                        metadata: ["records": String(released.count)])
                    settle(released)
                }
            }
            let free = configuration.fetchConcurrency - running.load(ordering: .acquiring)
            let (due, next) = queue.withLock { queue in (queue.takeDue(now: now, limit: free), queue.nextDue()) }
            for entry in due {
                running.wrappingAdd(1, ordering: .acquiringAndReleasing)
                Task {
                    await self.process(entry)
                    self.running.wrappingSubtract(1, ordering: .acquiringAndReleasing)
                    self.doorbell.ring()
                }
            }
            var wait = Duration.seconds(1)
            if free > due.count, let next { wait = min(wait, .seconds(max(0, next.timeIntervalSince(now)))) }
            // A ring (new request, finished fetch, stop) ends the wait early.
            await doorbell.wait(upTo: wait)
        }
    }

    /// Ends ``run()``; fetches in flight finish on their own.
    public func stop() {
        stopped.store(true, ordering: .releasing)
        doorbell.ring()
    }

    private var isStopped: Bool { stopped.load(ordering: .acquiring) }

    // MARK: - One fetch

    func process(_ entry: ReconcileQueue.Entry) async {
        let target = entry.target
        let started = Date()
        var body: [UInt8]?
        do {
            body = try await source.fetch(target).body
            metrics.fetches(target.provider, .found).increment()
        } catch  where error.kind == .notFound {
            body = nil
            metrics.fetches(target.provider, .notFound).increment()
        } catch {
            await failed(entry, error)
            return
        }
        health.succeeded(target.provider)
        let finished = Date()
        let keyed = SnapshotBuilder.fetched(
            target, body: body, started: started, finished: finished,
            trigger: entry.trigger.label, customerID: entry.customerID)
        var retries = BackoffCounter(Backoff(initial: .milliseconds(100), maximum: .seconds(5)))
        while true {
            do {
                try await publisher.publish([keyed])
                break
            } catch {
                // Stopping: the ticket stays held, so the batch is not committed and is re-read.
                if isStopped { logger.warning("snapshot not published at shutdown", metadata: ["target": target.description]); return }
                logger.error("snapshot not published; retrying", metadata: ["target": target.description, "error": "\(error)"])
                try? await Task.sleep(for: retries.failed())
            }
        }
        metrics.published(target.provider, entry.trigger.kind).increment()
        metrics.lag(target.provider).observe(max(0, finished.timeIntervalSince(entry.oldestReceivedAt)))
        logger.debug(
            "snapshot published",
            metadata: [
                "target": target.description, "outcome": keyed.snapshot.outcome.rawValue, "trigger": entry.trigger.label,
                "requests": String(entry.requests), "lag_seconds": String(format: "%.3f", finished.timeIntervalSince(entry.oldestReceivedAt)),
            ])
        let released = queue.withLock { $0.succeeded(target) }
        if !released.isEmpty { settle(released) }
    }

    /// Parks the entry for a retry, or gives up on a request the provider can never answer.
    private func failed(_ entry: ReconcileQueue.Entry, _ error: ProviderError) async {
        let target = entry.target
        if Self.isPermanent(error) {
            metrics.fetches(target.provider, .failed).increment()
            metrics.dropped("abandoned").increment()
            logger.error("fetch failed for good; given up", metadata: ["target": target.description, "error": error.description])
            let released = queue.withLock { $0.abandoned(target) }
            if !released.isEmpty { settle(released) }
            return
        }
        metrics.fetches(target.provider, .retry).increment()
        health.failed(target.provider, error: error.description)
        var delay = retryPolicy.backoff(beforeRetry: entry.attempts + 1)
        if let wanted = error.retryAfter { delay = max(delay, wanted) }
        logger.warning(
            "fetch failed; parked for a retry",
            metadata: [
                "target": target.description, "error": error.description, "attempt": String(entry.attempts + 1),
                "retry.in_seconds": String(format: "%.1f", delay.inSeconds),
            ])
        let released = queue.withLock { $0.failed(target, retryAt: Date().addingTimeInterval(delay.inSeconds)) }
        if !released.isEmpty {
            metrics.releasedEarly("parked").increment(by: released.count)
            settle(released)
        }
    }

    /// A malformed id or a refused method will never succeed; everything else
    /// (outage, rate limit, a key being rotated, a garbled answer) may.
    static func isPermanent(_ error: ProviderError) -> Bool {
        error.kind == .validation || error.kind == .rejected
    }
}
