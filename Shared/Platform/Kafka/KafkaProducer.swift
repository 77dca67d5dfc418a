#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Synchronization
import Telemetry

/// An idempotent Kafka producer (`enable.idempotence=true`, `acks=all`).
///
/// Delivery reports are served on a dedicated poll thread. Use
/// ``sendAndAwait(_:)`` when the caller must know the broker has the record
/// (answer a webhook only afterwards), or ``send(_:onDelivery:)`` to be
/// called back with the report on the poll thread instead of awaiting it;
/// use ``send(_:)`` for fire-and-forget,
/// whose failures are counted, logged and passed to
/// ``KafkaProducerConfiguration/deliveryFailureHandler``. Call
/// ``shutdown(timeout:)`` before dropping the producer, or queued messages are lost.
///
/// Recovery: once its librdkafka handle can no longer produce (a fatal
/// error, the broker having lost or fenced the producer id, messages timing
/// out: see ``RDKafkaProducerInstance/handleEndingCodes``; or records making
/// no progress for a while after a dropped broker connection:
/// ``RDKafkaProducerInstance/stallLimitAfterDisconnect``), the producer
/// replaces the handle on the next send, readiness probe or tick of its
/// service loop. What the old handle still owed is purged, so every record
/// on it is reported: an awaited send throws, a fire-and-forget one reaches
/// the failure handler. None is dropped silently, and none is sent again by
/// the producer: a record whose send failed may still have been written (its
/// acknowledgement was lost), so the caller's retry can duplicate it. That is
/// the at-least-once guarantee consumers already dedup (docs/architecture.md,
/// "Broker restarts").
public final class KafkaProducer: Sendable {
    let configuration: KafkaProducerConfiguration
    private let instance: Mutex<RDKafkaProducerInstance>
    /// Counters of the instances replaced, added once each has finished its purge.
    /// Replaced handles: those still shutting down (their late delivery
    /// reports still count) and the totals of those that finished.
    private let retired = Mutex(RetiredHandles())
    private let rebuilds = Mutex(0)
    private let queueFullTimeout: Duration
    /// Re-creates the declared topics (``KafkaProducerConfiguration/topics``).
    let topicKeeper: KafkaTopicKeeper
    /// Told when a delivery names a topic the broker lacks; passed to every new handle.
    private let unknownTopic: @Sendable (String) -> Void
    /// Where the producer reports its close when run as a service.
    let logger: Logger?

    /// Creates a producer and starts its poll thread.
    /// - Parameter logger: where ``run()`` reports the close (counts, and
    ///   whether records were left undelivered); `nil` reports nothing.
    /// - Throws: ``KafkaError/Code/libraryTooOld``, ``KafkaError/Code/invalidConfiguration``
    ///   or ``KafkaError/Code/clientCreationFailed``.
    public init(configuration: KafkaProducerConfiguration, logger: Logger? = nil) throws {
        try KafkaRuntime.checkLibraryVersion()
        self.configuration = configuration
        self.logger = logger
        let keeper: KafkaTopicKeeper
        if configuration.topics.isEmpty {
            keeper = KafkaTopicKeeper(topics: [], logHandler: nil) { _ in }
        } else {
            let admin = try KafkaAdmin(configuration: configuration.client)
            keeper = KafkaTopicKeeper(topics: configuration.topics, logHandler: configuration.client.logHandler) {
                try await admin.createTopics($0)
            }
        }
        topicKeeper = keeper
        unknownTopic = { topic in keeper.ensureInBackground(because: "the broker does not know \(topic)") }
        instance = Mutex(try RDKafkaProducerInstance(configuration: configuration, unknownTopic: unknownTopic))
        queueFullTimeout = configuration.queueFullTimeout
    }

    /// Running totals of delivered and failed records.
    /// A handle being replaced moves to ``retired`` under the same lock, so
    /// no report is missed or counted twice while it shuts down.
    public var counters: KafkaProducerCounters {
        instance.withLock { current in
            retired.withLock { $0.counters }.adding(current.context.counters)
        }
    }

    /// Whether the producer can publish now, from its own delivery reports
    /// (see ``KafkaPublishingStatus/problem(window:)``). Replaces a handle
    /// that can no longer produce first, so probing an idle producer recovers it.
    public var publishingStatus: KafkaPublishingStatus {
        var status = current.context.publishing
        status.rebuilds = rebuilds.withLock { $0 }
        return status
    }

    /// A readiness check: throws while ``publishingStatus`` has a problem.
    /// - Parameter window: how long records may wait without a delivery, and
    ///   how long a failure counts when nothing was delivered after it.
    /// - Throws: ``KafkaError/Code/notPublishing`` saying why.
    public func checkPublishing(window: Duration) throws(KafkaError) {
        if let problem = publishingStatus.problem(window: window) {
            throw KafkaError(.notPublishing, reason: problem)
        }
    }

    /// The handle to use: the current one, or its replacement when it can no longer produce.
    private var current: RDKafkaProducerInstance {
        let instance = instance.withLock { $0 }
        // A producer that is shutting down keeps its handle: a new one would outlive the shutdown.
        guard !instance.context.isClosed, let lost = instance.unrecoverable() else { return instance }
        return replace(instance, because: lost)
    }

    /// The librdkafka handle in use now (tests reach librdkafka's mock cluster through it).
    var currentClient: RDKafkaClient { current.client }

    /// Replaces the handle now if it can no longer produce; the service loop
    /// calls this so a producer that sends nothing still recovers.
    func recoverIfLost() { _ = current }

    /// Replaces `failed` if `error` (thrown by one of its sends) or its own
    /// state says it can no longer produce.
    private func replaceIfLost(_ failed: RDKafkaProducerInstance, after error: any Error) {
        guard !failed.context.isClosed, let lost = failed.unrecoverable(after: error) else { return }
        _ = replace(failed, because: lost)
    }

    /// Swaps in a new handle for `failed` (unless another caller did already)
    /// and purges `failed`: everything it owed is reported failed to its
    /// callers at once, rather than after `message.timeout.ms`.
    /// - Returns: the handle to use from now on.
    private func replace(_ failed: RDKafkaProducerInstance, because lost: KafkaError) -> RDKafkaProducerInstance {
        let (replacement, replaced) = instance.withLock { current -> (RDKafkaProducerInstance, Bool) in
            guard current === failed else { return (current, false) }
            do {
                let replacement = try RDKafkaProducerInstance(configuration: configuration, unknownTopic: unknownTopic)
                retired.withLock { $0.draining.append(current) }
                current = replacement
            } catch {
                // Creating a handle fails only on configuration, which worked before; keep the old one and retry next time.
                configuration.client.logHandler?(.error, "cannot replace the producer handle: \(error)")
                return (current, false)
            }
            return (current, true)
        }
        guard replaced else { return replacement }
        rebuilds.withLock { $0 += 1 }
        replacement.context.recordFailure("the producer handle was replaced: \(lost.reason)")
        configuration.client.logHandler?(.error, "replacing the producer handle, which can no longer produce: \(lost.reason)")
        // The broker that lost the producer's state may have lost its topics too.
        topicKeeper.ensureInBackground(because: "the producer handle was replaced")
        Task.detached { [self] in
            _ = await failed.poller.shutdown(timeout: .zero)
            retired.withLock { $0.finish(failed) }
        }
        return replacement
    }

    /// Enqueues a message without waiting for the broker. When the local queue
    /// is full this blocks the caller for up to
    /// ``KafkaProducerConfiguration/queueFullTimeout`` while deliveries make room.
    /// - Throws: ``KafkaError/Code/queueFull``, ``KafkaError/Code/enqueueFailed``
    ///   or ``KafkaError/Code/shutDown``.
    public func send(_ message: KafkaProducerMessage) throws {
        let instance = current
        try instance.context.checkOpen()
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: queueFullTimeout)
        while true {
            guard let failure = instance.produce(message, opaque: 0) else { return }
            guard failure.isQueueFull, clock.now < deadline else {
                replaceIfLost(instance, after: failure.error)
                throw failure.error
            }
            usleep(1000)
        }
    }

    /// Enqueues a message and suspends until the broker acknowledged it (or
    /// librdkafka gave up after ``KafkaProducerConfiguration/messageTimeout``).
    /// Cancellation does not withdraw an enqueued message, so this keeps waiting.
    /// - Returns: the partition and offset the record was written to.
    /// - Throws: the delivery failure as a ``KafkaError`` (for example
    ///   ``KafkaError/Code/messageTimedOut`` when the broker is down), or an
    ///   enqueue error as in ``send(_:)``.
    public func sendAndAwait(_ message: KafkaProducerMessage) async throws -> KafkaDeliveryReport {
        let instance = current
        let id = try instance.context.reserve()
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: queueFullTimeout)
        while let failure = instance.produce(message, opaque: id) {
            guard failure.isQueueFull, clock.now < deadline else {
                instance.context.cancel(id)
                replaceIfLost(instance, after: failure.error)
                throw failure.error
            }
            try? await Task.sleep(for: .milliseconds(1))
        }
        do {
            return try await instance.context.await(id)
        } catch {
            replaceIfLost(instance, after: error)
            throw error
        }
    }

    /// Enqueues a message and calls `onDelivery` exactly once with its outcome,
    /// without a task or a continuation: the callback form of
    /// ``sendAndAwait(_:)`` for callers that answer from the delivery report
    /// itself (the webhook receiver's deferred route).
    ///
    /// `onDelivery` runs on the producer's poll thread with the delivery
    /// report (success, a delivery failure, the purge of a replaced handle,
    /// or ``KafkaError/Code/shutDown`` when the producer closes first). It
    /// must not block: while it runs, no other delivery report is served.
    /// When the message cannot be enqueued at all (the producer was shut
    /// down, librdkafka refused it) it runs on the caller's thread before
    /// this returns.
    ///
    /// Never waits: unlike ``send(_:)`` and ``sendAndAwait(_:)``, a full
    /// local queue fails at once with ``KafkaError/Code/queueFull``
    /// (``KafkaProducerConfiguration/queueFullTimeout`` does not apply), so a
    /// caller on a thread that serves others (an HTTP thread) never sleeps
    /// here; a full queue means the broker is far behind, and the caller's
    /// answer (a 503 with `Retry-After`) sheds the load instead.
    public func send(
        _ message: KafkaProducerMessage, onDelivery: @escaping @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void
    ) {
        let instance = current
        // Weak: a producer dropped without shutdown must not be kept alive by its reports.
        let report: @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void = { [weak self] result in
            if case .failure(let error) = result { self?.replaceIfLost(instance, after: error) }
            onDelivery(result)
        }
        let id: UInt64
        do throws(KafkaError) {
            id = try instance.context.reserve(callback: report)
        } catch {
            onDelivery(.failure(error))
            return
        }
        guard let failure = instance.produce(message, opaque: id) else { return }
        // A shutdown that took the slot meanwhile has told the callback already.
        guard instance.context.cancel(id) else { return }
        replaceIfLost(instance, after: failure.error)
        onDelivery(.failure(failure.error))
    }

    /// Sends every message at once and returns once the broker acknowledged
    /// all of them: one broker round trip for the lot rather than one each.
    /// The messages are enqueued concurrently, so their order is not kept.
    /// - Throws: the first failure, as in ``sendAndAwait(_:)``; the others may
    ///   still have been delivered, so the caller sends the lot again.
    public func sendAllAndAwait(_ messages: [KafkaProducerMessage]) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for message in messages {
                group.addTask { _ = try await self.sendAndAwait(message) }
            }
            try await group.waitForAll()
        }
    }

    /// Sends the messages in their order, all at once, then awaits their
    /// acknowledgements in that order: a round trip or so for the lot rather
    /// than one each, with their order kept (the idempotent producer keeps a
    /// partition's order, retries included).
    /// - Returns: how many of the first messages the broker acknowledged
    ///   (every one before the first failure), and that failure. A message
    ///   after a failed one may have been delivered as well, so a caller that
    ///   keeps order sends it again rather than counting it.
    public func sendInOrderAndAwait(_ messages: [KafkaProducerMessage]) async -> KafkaOrderedDelivery {
        let instance = current
        var ids: [UInt64] = []
        ids.reserveCapacity(messages.count)
        var enqueueFailure: KafkaError?
        let clock = ContinuousClock()
        enqueue: for message in messages {
            let id: UInt64
            do { id = try instance.context.reserve() } catch {
                enqueueFailure = error as? KafkaError ?? KafkaError(.deliveryFailed, reason: "\(error)")
                break
            }
            let deadline = clock.now.advanced(by: queueFullTimeout)
            while let failure = instance.produce(message, opaque: id) {
                guard failure.isQueueFull, clock.now < deadline else {
                    instance.context.cancel(id)
                    replaceIfLost(instance, after: failure.error)
                    enqueueFailure = failure.error
                    break enqueue
                }
                try? await Task.sleep(for: .milliseconds(1))
            }
            ids.append(id)
        }
        // Every enqueued message is awaited, also after a failure, so no report is left behind.
        var delivery = KafkaOrderedDelivery(acknowledged: 0, failure: nil)
        for id in ids {
            do {
                _ = try await instance.context.await(id)
                if delivery.failure == nil { delivery.acknowledged += 1 }
            } catch {
                if delivery.failure == nil { delivery.failure = error as? KafkaError ?? KafkaError(.deliveryFailed, reason: "\(error)") }
                replaceIfLost(instance, after: error)
            }
        }
        if delivery.failure == nil { delivery.failure = enqueueFailure }
        return delivery
    }

    /// Stops accepting messages, waits up to `timeout` for queued and in-flight
    /// messages to be delivered, then purges the rest.
    /// - Returns: the fire-and-forget (``send(_:)``) messages that failed after
    ///   shutdown began, including those purged. Awaited messages are not in
    ///   this list: their ``sendAndAwait(_:)`` call throws instead.
    @discardableResult
    public func shutdown(timeout: Duration = .seconds(10)) async -> [KafkaUndeliveredMessage] {
        await current.poller.shutdown(timeout: timeout)
    }
}
