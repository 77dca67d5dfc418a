internal import CRdKafka
import Synchronization

/// Delivery-report bookkeeping for one producer handle: which `sendAndAwait`
/// calls (or `send(_:onDelivery:)` callbacks) wait for which message, running counters, what the handle still
/// owes and when it last made progress (``publishing``), whether an error
/// has left the handle unable to produce (``lostReason``), and the failures
/// collected while shutting down.
///
/// `@unchecked Sendable` (inherited): all mutable state sits in a `Mutex`.
final class RDKafkaProducerContext: RDKafkaCallbackContext, @unchecked Sendable {
    /// Who is told of one message's delivery report: a suspended
    /// `sendAndAwait`, or a `send(_:onDelivery:)` callback (run on the poll
    /// thread). Either is told exactly once.
    enum Waiter {
        case continuation(CheckedContinuation<KafkaDeliveryReport, any Error>)
        case callback(@Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void)

        func deliver(_ result: Result<KafkaDeliveryReport, KafkaError>) {
            switch self {
            case .continuation(let continuation): continuation.resume(with: result)
            case .callback(let callback): callback(result)
            }
        }
    }

    /// One awaited message: enqueued but not yet awaited, awaited (or given
    /// a callback when reserved), or its report arrived before anyone awaited it.
    private enum Slot {
        case pending
        case waiting(Waiter)
        case finished(Result<KafkaDeliveryReport, KafkaError>)
    }

    private struct State {
        var slots: [UInt64: Slot] = [:]
        var nextID: UInt64 = 1
        var closed = false
        var delivered = 0
        var failed = 0
        /// Non-nil once shutdown began: fire-and-forget failures collected for its result.
        var undelivered: [KafkaUndeliveredMessage]?
        /// Messages enqueued (or being enqueued) without a delivery report yet.
        var outstanding = 0
        /// The last progress on what is outstanding: the enqueue that made the
        /// queue non-empty, or the latest successful delivery.
        var progressAt: ContinuousClock.Instant?
        /// The latest failure with no successful delivery after it.
        var lastFailure: (at: ContinuousClock.Instant, reason: String)?
        /// Why this handle can no longer produce, once an error said so.
        var lost: KafkaError?
        /// A broker connection dropped and no delivery succeeded since.
        var disconnected = false
    }

    private let state = Mutex(State())
    private let clock = ContinuousClock()
    private let failureHandler: (@Sendable (KafkaUndeliveredMessage) -> Void)?
    /// Told (on the poll thread) when a delivery names a topic the broker does not have.
    private let unknownTopicHandler: (@Sendable (String) -> Void)?

    init(
        logHandler: KafkaLogHandler?, failureHandler: (@Sendable (KafkaUndeliveredMessage) -> Void)?,
        unknownTopicHandler: (@Sendable (String) -> Void)? = nil
    ) {
        self.failureHandler = failureHandler
        self.unknownTopicHandler = unknownTopicHandler
        super.init(logHandler: logHandler)
    }

    var counters: KafkaProducerCounters {
        state.withLock { KafkaProducerCounters(delivered: $0.delivered, failed: $0.failed) }
    }

    /// What this handle owes and its latest unanswered failure (`rebuilds` left 0).
    var publishing: KafkaPublishingStatus {
        state.withLock { state in
            let now = clock.now
            return KafkaPublishingStatus(
                undelivered: state.outstanding,
                stalledFor: state.outstanding > 0 ? state.progressAt.map { now - $0 } : nil,
                lastFailure: state.lastFailure.map { .init(age: now - $0.at, reason: $0.reason) },
                rebuilds: 0)
        }
    }

    /// Why this handle can never produce again, once a delivery report or a
    /// client error said so (see ``RDKafkaProducerInstance/handleEndingCodes``).
    var lostReason: KafkaError? { state.withLock { $0.lost } }

    /// How long what this handle owes has made no progress, when a broker
    /// connection dropped since the last successful delivery; nil otherwise.
    /// A broker that came back without this producer's state (a restarted
    /// memory broker) shows exactly this, long before messages time out.
    var stalledSinceDisconnect: Duration? {
        state.withLock { state in
            guard state.disconnected, state.outstanding > 0, let progressAt = state.progressAt else { return nil }
            return clock.now - progressAt
        }
    }

    /// Marks this handle unable to produce (the first reason wins).
    func markLost(_ error: KafkaError) {
        state.withLock { state in
            if state.lost == nil { state.lost = error }
        }
    }

    /// Records a failure that is not a delivery report of this handle (the
    /// handle this one replaced failed), so readiness keeps reporting it
    /// until a delivery succeeds here.
    func recordFailure(_ reason: String) {
        state.withLock { $0.lastFailure = (clock.now, reason) }
    }

    /// Counts a message about to be enqueued; call ``notEnqueued()`` if it was refused.
    func enqueueing() {
        state.withLock { state in
            state.outstanding += 1
            if state.outstanding == 1 { state.progressAt = clock.now }
        }
    }

    /// Takes back an ``enqueueing()`` whose message librdkafka refused.
    func notEnqueued() {
        state.withLock { state in
            state.outstanding = max(state.outstanding - 1, 0)
            if state.outstanding == 0 { state.progressAt = nil }
        }
    }

    /// True once shutdown began: the handle is being closed on purpose and is
    /// not replaced, however its last deliveries ended.
    var isClosed: Bool { state.withLock { $0.closed } }

    /// Fails unless the producer still accepts messages.
    func checkOpen() throws {
        if state.withLock({ $0.closed }) { throw KafkaError(.shutDown, reason: "the producer was shut down") }
    }

    /// Reserves an id whose delivery report will be kept for ``await(_:)``.
    func reserve() throws -> UInt64 {
        try reserve(.pending)
    }

    /// Reserves an id whose delivery report goes to `callback` (on the poll
    /// thread, or in ``finishShutdown()``). If its message is never enqueued,
    /// ``cancel(_:)`` it and tell the callback yourself.
    func reserve(callback: @escaping @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void) throws(KafkaError) -> UInt64 {
        try reserve(.waiting(.callback(callback)))
    }

    private func reserve(_ slot: Slot) throws(KafkaError) -> UInt64 {
        try state.withLock { state throws(KafkaError) in
            guard !state.closed else { throw KafkaError(.shutDown, reason: "the producer was shut down") }
            let id = state.nextID
            state.nextID += 1
            state.slots[id] = slot
            return id
        }
    }

    /// Forgets a reserved id whose message was never enqueued.
    /// - Returns: false when it was gone already: a shutdown reported it
    ///   failed meanwhile (its callback was told), so nobody else may tell it.
    @discardableResult
    func cancel(_ id: UInt64) -> Bool {
        state.withLock { $0.slots.removeValue(forKey: id) } != nil
    }

    /// Suspends until the delivery report for `id` arrives (or arrived already).
    func await(_ id: UInt64) async throws -> KafkaDeliveryReport {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<KafkaDeliveryReport, any Error>) in
            let ready: Result<KafkaDeliveryReport, KafkaError>? = state.withLock { state in
                switch state.slots[id] {
                case .pending:
                    state.slots[id] = .waiting(.continuation(continuation))
                    return nil
                case .finished(let result):
                    state.slots.removeValue(forKey: id)
                    return result
                case .waiting, nil:
                    return .failure(KafkaError(.shutDown, reason: "no delivery report is expected for this message"))
                }
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    // MARK: - Delivery reports (poll thread)

    override func deliveryReport(_ message: UnsafePointer<rd_kafka_message_t>) {
        let id = UInt64(UInt(bitPattern: message.pointee._private))
        let code = message.pointee.err
        let result: Result<KafkaDeliveryReport, KafkaError>
        if code == RD_KAFKA_RESP_ERR_NO_ERROR {
            result = .success(
                KafkaDeliveryReport(
                    topic: message.topicName, partition: message.pointee.partition, offset: message.pointee.offset))
        } else {
            let kind: KafkaError.Code = code == RD_KAFKA_RESP_ERR__MSG_TIMED_OUT ? .messageTimedOut : .deliveryFailed
            result = .failure(KafkaError(kind, rdKafka: code, context: "delivery to \(message.topicName) failed"))
        }
        // Fire-and-forget failures are rebuilt from librdkafka's copy, outside the lock.
        let undelivered: KafkaUndeliveredMessage? =
            if id == 0, case .failure(let error) = result {
                KafkaUndeliveredMessage(message: message.producerMessage, error: error)
            } else { nil }

        if case .failure(let error) = result, RDKafkaProducerInstance.handleEndingCodes.contains(code.rawValue) {
            markLost(error)
        }
        let now = clock.now
        let waiter: Waiter? = state.withLock { state in
            state.outstanding = max(state.outstanding - 1, 0)
            switch result {
            case .success:
                state.delivered += 1
                state.disconnected = false
                state.progressAt = state.outstanding > 0 ? now : nil
                state.lastFailure = nil
            case .failure(let error):
                state.failed += 1
                state.lastFailure = (now, error.reason)
                if state.outstanding == 0 { state.progressAt = nil }
            }
            if let undelivered { state.undelivered?.append(undelivered) }
            guard id != 0, let slot = state.slots[id] else { return nil }
            switch slot {
            case .waiting(let waiter):
                state.slots.removeValue(forKey: id)
                return waiter
            case .pending:
                state.slots[id] = .finished(result)
                return nil
            case .finished:
                return nil
            }
        }
        waiter?.deliver(result)
        if RDKafkaProducerInstance.unknownTopicCodes.contains(code.rawValue) {
            unknownTopicHandler?(message.topicName)
        }
        if let undelivered {
            logHandler?(.warning, "undelivered message for \(undelivered.message.topic): \(undelivered.error.reason)")
            failureHandler?(undelivered)
        }
    }

    /// A client-level error; a fatal one (`RD_KAFKA_RESP_ERR__FATAL`) ends the
    /// handle, a dropped connection is remembered (``stalledSinceDisconnect``).
    override func clientError(_ code: Int32, _ reason: String) {
        super.clientError(code, reason)
        if code == RD_KAFKA_RESP_ERR__TRANSPORT.rawValue || code == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN.rawValue {
            state.withLock { $0.disconnected = true }
        }
        if code == RD_KAFKA_RESP_ERR__FATAL.rawValue {
            markLost(KafkaError(.deliveryFailed, reason: "producer failed fatally: \(reason)", rdKafkaCode: code))
        }
    }

    // MARK: - Shutdown

    /// Refuses new messages and starts collecting fire-and-forget failures.
    func beginShutdown() {
        state.withLock { state in
            state.closed = true
            if state.undelivered == nil { state.undelivered = [] }
        }
    }

    /// Fails every awaited message (and callback) still without a report and returns the
    /// fire-and-forget failures collected since ``beginShutdown()``.
    func finishShutdown() -> [KafkaUndeliveredMessage] {
        let (waiters, undelivered) = state.withLock { state -> ([Waiter], [KafkaUndeliveredMessage]) in
            state.closed = true
            var waiters: [Waiter] = []
            for (id, slot) in state.slots {
                switch slot {
                case .waiting(let waiter):
                    waiters.append(waiter)
                    state.slots.removeValue(forKey: id)
                case .pending:
                    state.slots[id] = .finished(.failure(KafkaError(.shutDown, reason: "the producer shut down before delivery")))
                case .finished:
                    break
                }
            }
            let undelivered = state.undelivered ?? []
            state.undelivered = []
            return (waiters, undelivered)
        }
        for waiter in waiters {
            waiter.deliver(.failure(KafkaError(.shutDown, reason: "the producer shut down before delivery")))
        }
        return undelivered
    }
}
