import Timing
import Foundation
import ServiceRuntime
import Synchronization
import Telemetry

/// Works the delivery queue, fairly: each endpoint has its own slots
/// (``Settings/endpointConcurrency``, at most ``Settings/concurrency`` in
/// all), and a slot is refilled as soon as its attempt ends, so an endpoint
/// that is slow or never answers holds only its own slots while the others
/// keep flowing. Each claim asks only for endpoints with a free slot and
/// reads only due heads (``DeliveryQueue/claim(_:total:lease:)``). Each
/// outcome is recorded: delivered; failed, retried after the next delay of
/// the ``RetrySchedule`` (jittered); or dead once the schedule is spent. An
/// endpoint whose attempts have all failed for ``Settings/disableAfter`` is
/// disabled (the circuit breaker), counted and logged.
///
/// Several replicas may run it: leases keep them off each other's
/// deliveries, and a replica that dies mid-attempt leaves its lease to run
/// out, after which another sends again (the receiver dedupes by `webhook-id`).
public struct DeliveryDispatcher: Service {
    public struct Settings: Sendable, Hashable {
        /// `WEBHOOK_SENDER_CONCURRENCY` (default 8): attempts in flight per replica.
        public var concurrency = 8
        /// `WEBHOOK_SENDER_ENDPOINT_CONCURRENCY` (default 2): attempts in flight per endpoint and replica.
        public var endpointConcurrency = 2
        /// `WEBHOOK_SENDER_POLL_INTERVAL` (default 500 ms): the wait when nothing is due.
        public var pollInterval: Duration = .milliseconds(500)
        /// `WEBHOOK_SENDER_TIMEOUT` (default 10 s): one attempt, connect to last byte.
        public var timeout: Duration = .seconds(10)
        /// `WEBHOOK_SENDER_RETRY_SCHEDULE` (default ``RetrySchedule/default``).
        public var schedule = RetrySchedule.default
        /// `WEBHOOK_SENDER_DISABLE_AFTER` (default 5 days, as Svix): an endpoint
        /// whose every attempt failed for this long is disabled.
        public var disableAfter: Duration = .seconds(5 * 86_400)

        public init() {}

        /// A lease outlasts an attempt, so a live sender never loses its delivery to another.
        var lease: Duration { timeout * 2 + .seconds(5) }
    }

    public let name = "webhook-dispatcher"
    let queue: any DeliveryQueue
    let transport: any WebhookTransport
    let targets: any TargetCheck
    let settings: Settings
    let metrics: WebhookSenderMetrics
    let logger: Logger
    /// False until migrations are done: no claim before.
    let isReady: @Sendable () -> Bool

    public init(
        queue: any DeliveryQueue, transport: any WebhookTransport, targets: any TargetCheck = ResolvingTargetCheck(), settings: Settings,
        metrics: WebhookSenderMetrics, logger: Logger, isReady: @escaping @Sendable () -> Bool = { true }
    ) {
        self.queue = queue
        self.transport = transport
        self.targets = targets
        self.settings = settings
        self.metrics = metrics
        self.logger = logger
        self.isReady = isReady
    }

    /// What wakes the scheduling loop.
    enum Wake: Sendable {
        /// The poll interval (or a backoff) passed.
        case tick
        /// An attempt at `endpoint` ended; `disabled` when it tripped the breaker.
        case finished(endpoint: String, disabled: Bool)
    }

    public func run() async throws {
        let stop = StopSignal()
        try await withTaskCancellationHandler {
            // Not a child task: a stop must not cut attempts in flight short
            // (each is bounded by the timeout); they finish and are recorded.
            try await Task { try await self.schedule(until: { stop.isSet }) }.value
        } onCancel: {
            stop.set()
        }
    }

    /// The loop: claim for the free slots, start each attempt on its own,
    /// then wait for an attempt to end or the poll interval to pass.
    func schedule(until stopping: @escaping @Sendable () -> Bool) async throws {
        try await withThrowingTaskGroup(of: Wake.self) { group in
            var slots = EndpointSlots(perEndpoint: settings.endpointConcurrency, total: settings.concurrency)
            var endpoints = EndpointCache(maximumAge: settings.pollInterval)
            var failures = BackoffCounter(Backoff(initial: .milliseconds(250), maximum: .seconds(10)))
            var notBefore = ContinuousClock.now
            var ticking = false
            while !stopping() {
                var wait = settings.pollInterval
                var more = false
                if isReady() && ContinuousClock.now >= notBefore {
                    do {
                        more = try await fill(&slots, endpoints: &endpoints, group: &group)
                        failures.succeeded()
                    } catch {
                        wait = failures.failed()
                        notBefore = ContinuousClock.now + wait
                        logger.warning("claiming deliveries failed; retrying", metadata: ["error": "\(error)", "retry.in": "\(wait)"])
                    }
                }
                if more { continue }
                if !ticking {
                    ticking = true
                    group.addTask {
                        // In short naps, so a stop is not held up by a long wait.
                        let deadline = ContinuousClock.now + wait
                        while !stopping(), ContinuousClock.now < deadline {
                            try? await Task.sleep(for: min(deadline - ContinuousClock.now, .milliseconds(100)))
                        }
                        return .tick
                    }
                }
                switch try await group.next() {
                case .tick?: ticking = false
                case .finished(let endpoint, let disabled)?:
                    slots.release(endpoint)
                    if disabled { endpoints.invalidate() }
                case nil: break
                }
            }
            // Stopping: the attempts in flight end and are recorded; the group waits for them.
            for try await case .finished(let endpoint, _) in group { slots.release(endpoint) }
        }
    }

    /// Claims for every endpoint with a free slot and starts each attempt.
    /// - Returns: whether every slot asked for was filled (more may be due now).
    func fill(_ slots: inout EndpointSlots, endpoints: inout EndpointCache, group: inout ThrowingTaskGroup<Wake, any Error>) async throws -> Bool {
        let byID = try await endpoints.current(from: queue)
        let wanted = slots.free(among: byID.keys)
        guard !wanted.isEmpty else { return false }
        let total = min(slots.room, wanted.values.reduce(0, +))
        let clock = ContinuousClock()
        let started = clock.now
        let due = try await queue.claim(wanted, total: total, lease: settings.lease)
        metrics.claimTime.observe((clock.now - started).inSeconds)
        for delivery in due {
            // Claimed for an endpoint just removed: its lease runs out unused.
            guard let endpoint = byID[delivery.endpointID] else { continue }
            slots.take(endpoint.id)
            group.addTask { .finished(endpoint: endpoint.id, disabled: await self.attempt(delivery, endpoint)) }
        }
        return due.count == total
    }

    /// One attempt and its record.
    /// - Returns: whether its failure disabled the endpoint.
    func attempt(_ delivery: Delivery, _ endpoint: WebhookEndpoint) async -> Bool {
        let clock = ContinuousClock()
        let started = clock.now
        let outcome: DeliveryOutcome
        do {
            try await targets.check(endpoint)
            outcome = await DeliveryAttempt.perform(delivery, to: endpoint, through: transport, at: Date())
        } catch {
            outcome = .failed(status: nil, reason: "refused: \(error)")
        }
        metrics.latency(endpoint.id).observe((clock.now - started).inSeconds)
        metrics.attempts(endpoint.id).increment()
        var retryAt: Date?
        switch outcome {
        case .delivered:
            metrics.outcome(endpoint.id, "delivered").increment()
        case .failed(let status, let reason):
            let delay = settings.schedule.delay(afterFailedAttempts: delivery.attempts + 1)
            retryAt = delay.map { Date().addingTimeInterval($0.inSeconds) }
            metrics.outcome(endpoint.id, delay == nil ? "dead" : "failed").increment()
            // Ids, counts and the answer's status only: the body may hold a redemption link.
            logger.info(
                delay == nil ? "webhook dead-lettered after its last attempt" : "webhook attempt failed; retrying",
                metadata: [
                    "endpoint": endpoint.id, "event.id": delivery.eventID, "attempts": String(delivery.attempts + 1),
                    "http.status": status.map(String.init) ?? "none", "reason": reason,
                ])
        }
        do {
            let verdict = try await queue.record(delivery, outcome: outcome, retryAt: retryAt, disableAfter: settings.disableAfter)
            guard case .disabled(let since)? = verdict else { return false }
            metrics.endpointDisabled(endpoint.id).increment()
            logger.error(
                "webhook endpoint disabled: every attempt failed for too long",
                metadata: [
                    "endpoint": endpoint.id, "failing.since": ISO8601DateFormatter().string(from: since), "disable.after": "\(settings.disableAfter)",
                    "remedy": "fix the receiver, then storefront endpoints enable \(endpoint.id) and replay --since",
                ])
            return true
        } catch {
            // The lease runs out and the delivery is tried again.
            logger.warning(
                "webhook attempt not recorded; it will be retried when its lease ends",
                metadata: ["endpoint": endpoint.id, "event.id": delivery.eventID, "error": "\(error)"])
            return false
        }
    }
}

/// The enabled endpoints, read again once older than ``maximumAge`` (or
/// after the breaker disabled one), not before every claim.
struct EndpointCache {
    let maximumAge: Duration
    private var byID: [String: WebhookEndpoint] = [:]
    private var readAt: ContinuousClock.Instant?

    init(maximumAge: Duration) {
        self.maximumAge = maximumAge
    }

    mutating func current(from queue: any DeliveryQueue) async throws -> [String: WebhookEndpoint] {
        let now = ContinuousClock.now
        if let readAt, now - readAt < maximumAge { return byID }
        byID = Dictionary(try await queue.sendableEndpoints().map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        readAt = now
        return byID
    }

    mutating func invalidate() { readAt = nil }
}

/// Set once, when the service is asked to stop.
final class StopSignal: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
}
