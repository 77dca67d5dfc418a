#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An idempotent Kafka producer (`enable.idempotence=true`, `acks=all`).
///
/// Delivery reports are served on a dedicated poll thread. Use
/// ``sendAndAwait(_:)`` when the caller must know the broker has the record
/// (answer a webhook only afterwards); use ``send(_:)`` for fire-and-forget,
/// whose failures are counted, logged and passed to
/// ``KafkaProducerConfiguration/deliveryFailureHandler``. Call
/// ``shutdown(timeout:)`` before dropping the producer, or queued messages are lost.
public final class KafkaProducer: Sendable {
    private let client: RDKafkaClient
    private let context: RDKafkaProducerContext
    private let poller: RDKafkaProducerPoller
    private let queueFullTimeout: Duration

    /// Creates a producer and starts its poll thread.
    /// - Throws: ``KafkaError/Code/libraryTooOld``, ``KafkaError/Code/invalidConfiguration``
    ///   or ``KafkaError/Code/clientCreationFailed``.
    public init(configuration: KafkaProducerConfiguration) throws {
        try KafkaRuntime.checkLibraryVersion()
        let context = RDKafkaProducerContext(
            logHandler: configuration.client.logHandler, failureHandler: configuration.deliveryFailureHandler)
        client = try RDKafkaClient(
            kind: .producer, properties: configuration.properties, context: context,
            callbacks: [.deliveryReports, .errors])
        self.context = context
        queueFullTimeout = configuration.queueFullTimeout
        poller = RDKafkaProducerPoller(client: client, context: context)
        poller.start()
    }

    deinit {
        poller.stop()
    }

    /// Running totals of delivered and failed records.
    public var counters: KafkaProducerCounters { context.counters }

    /// Enqueues a message without waiting for the broker. When the local queue
    /// is full this blocks the caller for up to
    /// ``KafkaProducerConfiguration/queueFullTimeout`` while deliveries make room.
    /// - Throws: ``KafkaError/Code/queueFull``, ``KafkaError/Code/enqueueFailed``
    ///   or ``KafkaError/Code/shutDown``.
    public func send(_ message: KafkaProducerMessage) throws {
        try context.checkOpen()
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: queueFullTimeout)
        while true {
            guard let failure = client.produce(message, opaque: 0) else { return }
            guard failure.isQueueFull, clock.now < deadline else { throw failure.error }
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
        let id = try context.reserve()
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: queueFullTimeout)
        while let failure = client.produce(message, opaque: id) {
            guard failure.isQueueFull, clock.now < deadline else {
                context.cancel(id)
                throw failure.error
            }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return try await context.await(id)
    }

    /// Stops accepting messages, waits up to `timeout` for queued and in-flight
    /// messages to be delivered, then purges the rest.
    /// - Returns: the fire-and-forget (``send(_:)``) messages that failed after
    ///   shutdown began, including those purged. Awaited messages are not in
    ///   this list: their ``sendAndAwait(_:)`` call throws instead.
    @discardableResult
    public func shutdown(timeout: Duration = .seconds(10)) async -> [KafkaUndeliveredMessage] {
        await poller.shutdown(timeout: timeout)
    }
}
