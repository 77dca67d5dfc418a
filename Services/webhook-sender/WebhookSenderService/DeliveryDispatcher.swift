import Timing
import Foundation
import ServiceRuntime
import Telemetry

/// Works the delivery queue: takes the deliveries that are due (first in
/// their endpoint's queue for their ordering key, ``DeliveryStore/claimDue(limit:lease:)``),
/// sends up to ``Settings/concurrency`` at once, and records each outcome:
/// delivered; failed, retried after the next delay of the ``RetrySchedule``
/// (jittered); or dead once the schedule is spent.
///
/// Several replicas may run it: leases keep them off each other's
/// deliveries, and a replica that dies mid-attempt leaves its lease to run
/// out, after which another sends again (the receiver dedupes by `webhook-id`).
public struct DeliveryDispatcher: Service {
    public struct Settings: Sendable, Hashable {
        /// `WEBHOOK_SENDER_CONCURRENCY` (default 8): attempts in flight per replica.
        public var concurrency = 8
        /// `WEBHOOK_SENDER_POLL_INTERVAL` (default 500 ms): the wait when nothing is due.
        public var pollInterval: Duration = .milliseconds(500)
        /// `WEBHOOK_SENDER_TIMEOUT` (default 10 s): one attempt, connect to last byte.
        public var timeout: Duration = .seconds(10)
        /// `WEBHOOK_SENDER_RETRY_SCHEDULE` (default ``RetrySchedule/default``).
        public var schedule = RetrySchedule.default

        public init() {}

        /// A lease outlasts an attempt, so a live sender never loses its delivery to another.
        var lease: Duration { timeout * 2 + .seconds(5) }
    }

    public let name = "webhook-dispatcher"
    let deliveries: DeliveryStore
    let endpoints: EndpointStore
    let transport: any WebhookTransport
    let settings: Settings
    let metrics: WebhookSenderMetrics
    let logger: Logger
    /// False until migrations are done: no round before.
    let isReady: @Sendable () -> Bool

    public init(
        deliveries: DeliveryStore, endpoints: EndpointStore, transport: any WebhookTransport, settings: Settings, metrics: WebhookSenderMetrics,
        logger: Logger, isReady: @escaping @Sendable () -> Bool = { true }
    ) {
        self.deliveries = deliveries
        self.endpoints = endpoints
        self.transport = transport
        self.settings = settings
        self.metrics = metrics
        self.logger = logger
        self.isReady = isReady
    }

    public func run() async throws {
        var failures = BackoffCounter(Backoff(initial: .milliseconds(250), maximum: .seconds(10)))
        while !Task.isCancelled {
            var wait = settings.pollInterval
            if isReady() {
                do {
                    // Not a child task: a stop must not cut attempts in flight short
                    // (each is bounded by the timeout); they finish and are recorded.
                    let sent = try await Task { try await self.round() }.value
                    failures.succeeded()
                    if sent == settings.concurrency { wait = .zero }
                } catch {
                    wait = failures.failed()
                    logger.warning("delivery round failed; retrying", metadata: ["error": "\(error)", "retry.in": "\(wait)"])
                }
            }
            if wait > .zero { try? await Task.sleep(for: wait) }
        }
    }

    /// One round: claim, send concurrently, record.
    /// - Returns: how many deliveries were attempted.
    func round() async throws -> Int {
        let due = try await deliveries.claimDue(limit: settings.concurrency, lease: settings.lease)
        guard !due.isEmpty else { return 0 }
        let byID = Dictionary(try await endpoints.all().map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        try await withThrowingTaskGroup(of: Void.self) { group in
            for delivery in due {
                guard let endpoint = byID[delivery.endpointID] else { continue }
                group.addTask { try await self.attempt(delivery, endpoint) }
            }
            try await group.waitForAll()
        }
        return due.count
    }

    func attempt(_ delivery: Delivery, _ endpoint: WebhookEndpoint) async throws {
        let clock = ContinuousClock()
        let started = clock.now
        let outcome = await DeliveryAttempt.perform(delivery, to: endpoint, through: transport, at: Date())
        metrics.latency(endpoint.id).observe((clock.now - started).inSeconds)
        metrics.attempts(endpoint.id).increment()
        switch outcome {
        case .delivered:
            metrics.outcome(endpoint.id, "delivered").increment()
            try await deliveries.record(delivery, outcome: outcome, retryAt: nil)
        case .failed(let status, let reason):
            let delay = settings.schedule.delay(afterFailedAttempts: delivery.attempts + 1)
            metrics.outcome(endpoint.id, delay == nil ? "dead" : "failed").increment()
            try await deliveries.record(delivery, outcome: outcome, retryAt: delay.map { Date().addingTimeInterval($0.inSeconds) })
            // Ids, counts and the answer's status only: the body may hold a redemption link.
            logger.info(
                delay == nil ? "webhook dead-lettered after its last attempt" : "webhook attempt failed; retrying",
                metadata: [
                    "endpoint": endpoint.id, "event.id": delivery.eventID, "attempts": String(delivery.attempts + 1),
                    "http.status": status.map(String.init) ?? "none", "reason": reason,
                ])
        }
    }
}
