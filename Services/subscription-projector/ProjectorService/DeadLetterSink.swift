import Foundation
import Kafka
import BillingModel

/// Where records the projector cannot apply are kept.
public protocol DeadLetterSink: Sendable {
    /// Stores every letter durably (returns only once all are acknowledged).
    func send(_ letters: [DeadLetterRecord]) async throws
}

/// Produces dead letters to `storefront.deadletter.v1`, keyed like their
/// source, in the wire form of ``Models/DeadLetterRecord/metadataHeader``
/// (the source value untouched as the record's value), and waits for the
/// broker to acknowledge each.
public struct KafkaDeadLetterSink: DeadLetterSink {
    public let producer: KafkaProducer
    public let topic: String
    /// The broker's and producer's message limit (`KAFKA_MAX_MESSAGE_BYTES`).
    public let maxMessageBytes: Int

    /// Room kept for the record's framing beyond key, value and header.
    static let framingAllowance = 1024

    public init(
        producer: KafkaProducer, topic: String = Topics.deadLetter,
        maxMessageBytes: Int = KafkaClientConfiguration.defaultMaxMessageBytes
    ) {
        self.producer = producer
        self.topic = topic
        self.maxMessageBytes = maxMessageBytes
    }

    public func send(_ letters: [DeadLetterRecord]) async throws {
        try await producer.sendAllAndAwait(try letters.map { try Self.message($0, topic: topic, maxMessageBytes: maxMessageBytes) })
    }

    /// The record for `letter`. A source value that cannot fit beside the
    /// metadata (only a record produced past the limit by another client
    /// could) is left out and its size noted
    /// (``Models/DeadLetterRecord/omittedSourceValueBytes``): a letter that
    /// can never be produced would block its partition for ever.
    public static func message(_ letter: DeadLetterRecord, topic: String, maxMessageBytes: Int) throws -> KafkaProducerMessage {
        let key = letter.sourceKey.map { Array($0.utf8) }
        var metadata = try letter.wireMetadata()
        var value: [UInt8]? = letter.sourceValue.bytes
        if (key?.count ?? 0) + metadata.count + letter.sourceValue.bytes.count + framingAllowance > maxMessageBytes {
            var trimmed = letter
            trimmed.sourceValue = RawBytes([])
            trimmed.omittedSourceValueBytes = letter.sourceValue.bytes.count
            metadata = try trimmed.wireMetadata()
            value = nil
        }
        return KafkaProducerMessage(topic: topic, key: key, value: value, headers: [KafkaHeader(DeadLetterRecord.metadataHeader, metadata)])
    }
}
