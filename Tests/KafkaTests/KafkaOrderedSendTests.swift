import Testing

@testable import Kafka

/// ``KafkaProducer/sendInOrderAndAwait(_:)`` against librdkafka's in-process
/// mock cluster: every message of a round acknowledged, and a round cut at
/// its first failure, the messages before it acknowledged.
@Suite struct KafkaOrderedSendTests {
    private static let topic = "ordered"

    private static func producer(maxMessageBytes: Int = KafkaClientConfiguration.defaultMaxMessageBytes) throws -> KafkaProducer {
        var client = KafkaClientConfiguration(
            bootstrapServers: ["127.0.0.1:1"], clientID: "ordered-tests", logHandler: nil, maxMessageBytes: maxMessageBytes)
        // The mock cluster creates topics on request; Storefront's producers never ask a real broker to.
        client.extraProperties = ["test.mock.num.brokers": "1", "allow.auto.create.topics": "true"]
        return try KafkaProducer(configuration: KafkaProducerConfiguration(client: client, messageTimeout: .seconds(5)))
    }

    private static func message(_ value: String, bytes: Int = 0) -> KafkaProducerMessage {
        KafkaProducerMessage(topic: topic, key: "user", value: Array(value.utf8) + [UInt8](repeating: 0x20, count: bytes))
    }

    @Test func everyMessageOfARoundIsAcknowledged() async throws {
        let producer = try Self.producer()
        let delivery = await producer.sendInOrderAndAwait((0..<50).map { Self.message("m\($0)") })
        #expect(delivery.acknowledged == 50)
        #expect(delivery.failure == nil)
        #expect(producer.counters.delivered == 50)
        _ = await producer.shutdown(timeout: .seconds(2))
    }

    @Test func aRoundEndsAtItsFirstFailureWithTheMessagesBeforeItAcknowledged() async throws {
        let producer = try Self.producer(maxMessageBytes: 1 << 20)
        // The third is larger than the producer accepts, so librdkafka refuses it at once.
        let round = [Self.message("a"), Self.message("b"), Self.message("too large", bytes: 2 << 20), Self.message("d")]
        let delivery = await producer.sendInOrderAndAwait(round)
        #expect(delivery.acknowledged == 2)
        #expect(delivery.failure != nil)
        #expect(producer.counters.delivered == 2, "nothing after the failure was sent")
        _ = await producer.shutdown(timeout: .seconds(2))
    }
}
