import Timing
internal import CRdKafka

/// One librdkafka producer handle with its callback context and poll thread.
///
/// ``KafkaProducer`` replaces its instance once this one can no longer
/// produce (``unrecoverable(after:)``). librdkafka's idempotent producer keeps
/// a producer id and per-partition sequence numbers that the broker must
/// remember; when the broker lost them (restarted, fenced the id after a long
/// outage, expired the producer's state) librdkafka either raises a fatal
/// error, whose documented remedy is a new handle, or keeps retrying until
/// every message times out. A new handle starts with a new id and fresh
/// sequences, so it recovers in both cases.
final class RDKafkaProducerInstance: Sendable {
    let client: RDKafkaClient
    let context: RDKafkaProducerContext
    let poller: RDKafkaProducerPoller

    /// - Parameter unknownTopic: told, on the poll thread, when a delivery
    ///   names a topic the broker does not have.
    init(configuration: KafkaProducerConfiguration, unknownTopic: (@Sendable (String) -> Void)? = nil) throws {
        context = RDKafkaProducerContext(
            logHandler: configuration.client.logHandler, failureHandler: configuration.deliveryFailureHandler,
            unknownTopicHandler: unknownTopic)
        client = try RDKafkaClient(
            kind: .producer, properties: configuration.properties, context: context,
            callbacks: [.deliveryReports, .errors])
        poller = RDKafkaProducerPoller(client: client, context: context)
        poller.start()
    }

    deinit {
        poller.stop()
    }

    /// Enqueues `message`, counting it as owed until its delivery report.
    /// - Returns: `nil` when enqueued, otherwise why not.
    func produce(_ message: KafkaProducerMessage, opaque: UInt64) -> ProduceFailure? {
        context.enqueueing()
        let failure = client.produce(message, opaque: opaque)
        if let failure {
            context.notEnqueued()
            if Self.handleEndingCodes.contains(failure.error.rdKafkaCode ?? 0) { context.markLost(failure.error) }
        }
        return failure
    }

    /// Errors after which this handle is not used again.
    ///
    /// - PRODUCER_FENCED, INVALID_PRODUCER_EPOCH: the broker will never accept
    ///   this producer id again (Tansu fences it once an outage outlasted
    ///   `message.timeout.ms`).
    /// - UNKNOWN_PRODUCER_ID, OUT_OF_ORDER_SEQUENCE_NUMBER: the broker lost
    ///   the id's state (a restarted memory broker; real Kafka when the
    ///   producer's state expired), and the sequences no longer line up.
    /// - `_FATAL`, `_GAPLESS_GUARANTEE`, `_INCONSISTENT`: librdkafka gave up
    ///   on the idempotence state itself.
    /// - `_MSG_TIMED_OUT`: librdkafka retries a stuck idempotence state (the
    ///   broker answering UNKNOWN_PRODUCER_ID to every retry, as Tansu does
    ///   after a restart) until each message times out, and never recovers
    ///   on its own. A broker that is merely down times messages out too;
    ///   a fresh handle costs one InitProducerId then and waits for the broker
    ///   just the same.
    static let handleEndingCodes: Set<Int32> = [
        RD_KAFKA_RESP_ERR_PRODUCER_FENCED.rawValue, RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH.rawValue,
        RD_KAFKA_RESP_ERR_UNKNOWN_PRODUCER_ID.rawValue, RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER.rawValue,
        RD_KAFKA_RESP_ERR__FATAL.rawValue, RD_KAFKA_RESP_ERR__GAPLESS_GUARANTEE.rawValue,
        RD_KAFKA_RESP_ERR__INCONSISTENT.rawValue, RD_KAFKA_RESP_ERR__MSG_TIMED_OUT.rawValue,
    ]

    /// Errors that mean the broker does not have the topic.
    static let unknownTopicCodes: Set<Int32> = [
        RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART.rawValue, RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC.rawValue,
    ]

    /// How long records may wait without progress after a broker connection
    /// dropped before the handle counts as stuck. After a restart of the
    /// memory broker every send of the old handle is refused
    /// (UNKNOWN_PRODUCER_ID) until `message.timeout.ms` (30 s for the
    /// checkout); a reconnected broker that still has the producer's state
    /// delivers within milliseconds, so 5 s tells the two apart without
    /// waiting for the timeout. Only after a dropped connection: a slow but
    /// connected broker is never cut short.
    static let stallLimitAfterDisconnect = Duration.seconds(5)

    /// Why this handle can never produce again, or nil while it still can:
    /// a fatal error (`rd_kafka_fatal_error`), an error of
    /// ``handleEndingCodes`` seen in a delivery report or client error,
    /// records stalled ``stallLimitAfterDisconnect`` after a dropped broker
    /// connection, or `error` (thrown by a send) being one of those codes.
    func unrecoverable(after error: (any Error)? = nil) -> KafkaError? {
        // Asked before every send: the text buffer lives on the stack, not the heap.
        let fatal = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 512) { buffer -> KafkaError? in
            buffer.initialize(repeating: 0)
            let code = rd_kafka_fatal_error(client.handle, buffer.baseAddress, buffer.count)
            guard code != RD_KAFKA_RESP_ERR_NO_ERROR else { return nil }
            return KafkaError(.deliveryFailed, reason: "producer instance failed fatally: \(cText(Array(buffer)))", rdKafkaCode: code.rawValue)
        }
        if let fatal { return fatal }
        if let lost = context.lostReason { return lost }
        if let stalled = context.stalledSinceDisconnect, stalled >= Self.stallLimitAfterDisconnect {
            let reason = "no delivery for \(stalled.wholeMilliseconds) ms since a broker connection dropped"
            return KafkaError(.deliveryFailed, reason: reason + " (the broker may have lost this producer's state)")
        }
        guard let kafkaError = error as? KafkaError, let lost = kafkaError.rdKafkaCode, Self.handleEndingCodes.contains(lost) else {
            return nil
        }
        return kafkaError
    }
}
