import Foundation
import Kafka
import BillingModel

/// Where snapshots go.
public protocol SnapshotPublisher: Sendable {
    /// Publishes every snapshot; returns only once the broker has acknowledged all of them.
    /// - Throws: when any was not acknowledged (the caller publishes them again).
    func publish(_ snapshots: [KeyedSnapshot]) async throws
}

/// Produces snapshots to `storefront.snapshots.v1` and waits for each acknowledgement.
public struct KafkaSnapshotPublisher: SnapshotPublisher {
    public let producer: KafkaProducer
    public let topic: String

    public init(producer: KafkaProducer, topic: String = Topics.snapshots) {
        self.producer = producer
        self.topic = topic
    }

    public func publish(_ snapshots: [KeyedSnapshot]) async throws {
        let topic = topic
        let messages = try snapshots.map { KafkaProducerMessage(topic: topic, key: $0.key, value: try RecordCoding.encode($0.snapshot)) }
        try await producer.sendAllAndAwait(messages)
    }
}
