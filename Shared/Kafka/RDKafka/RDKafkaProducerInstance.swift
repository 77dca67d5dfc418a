internal import CRdKafka

/// One librdkafka producer handle with its callback context and poll thread.
///
/// ``KafkaProducer`` replaces its instance when librdkafka reports a fatal
/// error, which for an idempotent producer (for example after the broker
/// fenced its producer id following a long outage) leaves the handle unable
/// to produce ever again; librdkafka's documented remedy is a new handle.
final class RDKafkaProducerInstance: Sendable {
    let client: RDKafkaClient
    let context: RDKafkaProducerContext
    let poller: RDKafkaProducerPoller

    init(configuration: KafkaProducerConfiguration) throws {
        context = RDKafkaProducerContext(
            logHandler: configuration.client.logHandler, failureHandler: configuration.deliveryFailureHandler)
        client = try RDKafkaClient(
            kind: .producer, properties: configuration.properties, context: context,
            callbacks: [.deliveryReports, .errors])
        poller = RDKafkaProducerPoller(client: client, context: context)
        poller.start()
    }

    deinit {
        poller.stop()
    }

    /// Broker answers after which this producer id can never write again, so
    /// only a new handle (with a new id) recovers: PRODUCER_FENCED (seen from
    /// Tansu once an outage outlasted `message.timeout.ms`) and INVALID_PRODUCER_EPOCH.
    private static let producerIDLost: Set<Int32> = [
        RD_KAFKA_RESP_ERR_PRODUCER_FENCED.rawValue, RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH.rawValue,
    ]

    /// Why this handle can never produce again after `error`, or nil when it still can:
    /// a fatal error (`rd_kafka_fatal_error`) or a lost producer id.
    func unrecoverable(after error: any Error) -> KafkaError? {
        var text = [CChar](repeating: 0, count: 512)
        let code = rd_kafka_fatal_error(client.handle, &text, text.count)
        if code != RD_KAFKA_RESP_ERR_NO_ERROR {
            return KafkaError(.deliveryFailed, reason: "producer instance failed fatally: \(cText(text))", rdKafkaCode: code.rawValue)
        }
        guard let kafkaError = error as? KafkaError, let lost = kafkaError.rdKafkaCode, Self.producerIDLost.contains(lost) else { return nil }
        return kafkaError
    }
}
