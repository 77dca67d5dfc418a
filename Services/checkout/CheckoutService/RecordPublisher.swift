import Kafka
import BillingModel

/// Where the checkout service's records go once the provider has answered.
public protocol RecordPublisher: Sendable {
    /// Writes one record and returns once the broker has acknowledged it.
    func publish(topic: String, key: String, value: [UInt8]) async throws
}

/// Publishes with an idempotent ``KafkaProducer``, awaiting each delivery report.
public struct KafkaRecordPublisher: RecordPublisher {
    public let producer: KafkaProducer

    public init(producer: KafkaProducer) {
        self.producer = producer
    }

    public func publish(topic: String, key: String, value: [UInt8]) async throws {
        _ = try await producer.sendAndAwait(KafkaProducerMessage(topic: topic, key: key, value: value))
    }
}

extension RecordPublisher {
    /// Encodes `record` with ``RecordCoding`` and publishes it.
    func publish<Record: Encodable>(_ record: Record, topic: String, key: String) async throws {
        try await publish(topic: topic, key: key, value: RecordCoding.encode(record))
    }
}
