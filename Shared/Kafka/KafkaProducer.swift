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
/// (answer a webhook only afterwards); use ``send(_:)`` for fire-and-forget,
/// whose failures are counted, logged and passed to
/// ``KafkaProducerConfiguration/deliveryFailureHandler``. Call
/// ``shutdown(timeout:)`` before dropping the producer, or queued messages are lost.
///
/// When librdkafka reports a fatal error (an idempotent producer fenced by the
/// broker after an outage, say), the failing call throws and the producer
/// replaces its librdkafka handle, so later sends work again once the broker does.
public final class KafkaProducer: Sendable {
    let configuration: KafkaProducerConfiguration
    private let instance: Mutex<RDKafkaProducerInstance>
    /// Counters of the instances replaced after fatal errors.
    private let retiredCounters = Mutex(KafkaProducerCounters(delivered: 0, failed: 0))
    private let queueFullTimeout: Duration
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
        instance = Mutex(try RDKafkaProducerInstance(configuration: configuration))
        queueFullTimeout = configuration.queueFullTimeout
    }

    /// Running totals of delivered and failed records.
    public var counters: KafkaProducerCounters {
        let current = instance.withLock { $0 }.context.counters
        let retired = retiredCounters.withLock { $0 }
        return KafkaProducerCounters(delivered: current.delivered + retired.delivered, failed: current.failed + retired.failed)
    }

    private var current: RDKafkaProducerInstance { instance.withLock { $0 } }

    /// Swaps in a new librdkafka handle if `failed` cannot produce any more
    /// (see ``RDKafkaProducerInstance/unrecoverable(after:)``); the old one is
    /// shut down without waiting (its messages cannot be sent).
    private func replaceIfFatal(_ failed: RDKafkaProducerInstance, after error: any Error) {
        guard let fatal = failed.unrecoverable(after: error) else { return }
        let replaced = instance.withLock { current -> Bool in
            guard current === failed, let fresh = try? RDKafkaProducerInstance(configuration: configuration) else { return false }
            current = fresh
            return true
        }
        guard replaced else { return }
        configuration.client.logHandler?(.error, "replacing the producer after a fatal error: \(fatal.reason)")
        retiredCounters.withLock {
            let old = failed.context.counters
            $0 = KafkaProducerCounters(delivered: $0.delivered + old.delivered, failed: $0.failed + old.failed)
        }
        Task.detached { _ = await failed.poller.shutdown(timeout: .zero) }
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
            guard let failure = instance.client.produce(message, opaque: 0) else { return }
            guard failure.isQueueFull, clock.now < deadline else {
                replaceIfFatal(instance, after: failure.error)
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
        while let failure = instance.client.produce(message, opaque: id) {
            guard failure.isQueueFull, clock.now < deadline else {
                instance.context.cancel(id)
                replaceIfFatal(instance, after: failure.error)
                throw failure.error
            }
            try? await Task.sleep(for: .milliseconds(1))
        }
        do {
            return try await instance.context.await(id)
        } catch {
            replaceIfFatal(instance, after: error)
            throw error
        }
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
