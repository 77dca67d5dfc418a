import Foundation
import Kafka
import Models

/// Where records the projector cannot apply are kept.
public protocol DeadLetterSink: Sendable {
    /// Stores every letter durably (returns only once all are acknowledged).
    func send(_ letters: [DeadLetterRecord]) async throws
}

/// Produces dead letters to `storefront.deadletter.v1`, keyed like their
/// source, and waits for the broker to acknowledge each.
public struct KafkaDeadLetterSink: DeadLetterSink {
    public let producer: KafkaProducer
    public let topic: String

    public init(producer: KafkaProducer, topic: String = Topics.deadLetter) {
        self.producer = producer
        self.topic = topic
    }

    public func send(_ letters: [DeadLetterRecord]) async throws {
        let topic = topic
        let messages = try letters.map { letter in
            KafkaProducerMessage(topic: topic, key: letter.sourceKey.map { Array($0.utf8) }, value: try RecordCoding.encode(letter))
        }
        try await producer.sendAllAndAwait(messages)
    }
}
