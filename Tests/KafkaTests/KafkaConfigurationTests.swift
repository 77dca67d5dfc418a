import Testing
@testable import Kafka

/// Configuration rendering and failures that need no broker.
@Suite struct KafkaConfigurationTests {
    private let client = KafkaClientConfiguration(bootstrapServers: ["127.0.0.1:1", "127.0.0.1:2"], logHandler: nil)

    @Test func producerIsIdempotentAndOverridesComeLast() {
        var configuration = KafkaProducerConfiguration(client: client, messageTimeout: .milliseconds(1500))
        configuration.client.extraProperties = ["linger.ms": "7", "compression.type": "lz4"]
        let properties = configuration.properties
        #expect(properties["bootstrap.servers"] == "127.0.0.1:1,127.0.0.1:2")
        #expect(properties["enable.idempotence"] == "true")
        #expect(properties["acks"] == "all")
        #expect(properties["message.timeout.ms"] == "1500")
        #expect(properties["linger.ms"] == "7")
        #expect(properties["compression.type"] == "lz4")
        #expect(properties["allow.auto.create.topics"] == "false", "a missing topic is re-created as declared, never by the broker")
    }

    @Test func messagingDeclaresItsTopicsToTheProducer() {
        let messaging = MessagingSettings(client: client, topicPartitions: 6, replicationFactor: 3, topicCheckInterval: .seconds(7))
        let configuration = messaging.producerConfiguration(declaring: ["a", "b"], messageTimeout: .seconds(4))
        #expect(configuration.topics == messaging.topicSpecifications(["a", "b"]))
        #expect(configuration.topics.map(\.partitions) == [6, 6])
        #expect(configuration.topics.map(\.replicationFactor) == [3, 3])
        #expect(configuration.topicCheckInterval == .seconds(7))
        #expect(configuration.messageTimeout == .seconds(4))
    }

    /// A topic named twice is asked for once: a broker answers a CreateTopics
    /// request that repeats a name with a response librdkafka cannot parse.
    @Test func aTopicNamedTwiceIsSpecifiedOnce() {
        let messaging = MessagingSettings(client: client, topicPartitions: 6, replicationFactor: 3, topicCheckInterval: .seconds(7))
        #expect(messaging.topicSpecifications(["a", "b", "a"]).map(\.name) == ["a", "b"])
    }

    @Test func consumerCommitsOnlyExplicitly() throws {
        let configuration = KafkaConsumerConfiguration(client: client, groupID: "g")
        let properties = configuration.properties
        #expect(properties["enable.auto.commit"] == "false")
        #expect(properties["enable.auto.offset.store"] == "false")
        #expect(properties["session.timeout.ms"] == "6000")
        #expect(properties["group.id"] == "g")
        #expect(properties["auto.offset.reset"] == "earliest")
        #expect(properties["allow.auto.create.topics"] == "false")
        #expect(properties["fetch.wait.max.ms"] == "25", "Tansu holds every fetch this long")
        #expect(properties["queued.max.messages.kbytes"] == "8192", "prefetch bounded to 8 MiB, not librdkafka's 64")
    }

    @Test func invalidSettingsAreRejected() {
        var badBatch = KafkaConsumerConfiguration(client: client, groupID: "g")
        badBatch.maxBatchSize = 0
        #expect(throws: KafkaError.self) { _ = try KafkaConsumer(topics: ["t"], configuration: badBatch) }
        var badWait = KafkaConsumerConfiguration(client: client, groupID: "g")
        badWait.fetchMaxWait = .zero
        #expect(throws: KafkaError.self) { _ = try KafkaConsumer(topics: ["t"], configuration: badWait) }
        var badGap = KafkaConsumerConfiguration(client: client, groupID: "g")
        badGap.offsetGapRecheck = .zero
        #expect(throws: KafkaError.self) { _ = try KafkaConsumer(topics: ["t"], configuration: badGap) }

        var unknown = client
        unknown.extraProperties = ["no.such.property": "1"]
        let error = #expect(throws: KafkaError.self) {
            _ = try KafkaProducer(configuration: KafkaProducerConfiguration(client: unknown))
        }
        #expect(error?.code == .invalidConfiguration)
    }

    @Test func fullLocalQueueThrowsQueueFullAndShutdownReturnsTheRest() async throws {
        // Nothing listens on port 1, so messages stay queued.
        let configuration = KafkaProducerConfiguration(
            client: client, maxQueuedMessages: 1, queueFullTimeout: .milliseconds(20))
        let producer = try KafkaProducer(configuration: configuration)
        try producer.send(KafkaProducerMessage(topic: "t", key: "first", value: [1]))
        let error = #expect(throws: KafkaError.self) {
            try producer.send(KafkaProducerMessage(topic: "t", key: "second", value: [2]))
        }
        #expect(error?.code == .queueFull)
        let undelivered = await producer.shutdown(timeout: .zero)
        #expect(undelivered.map(\.message.key) == [Array("first".utf8)])
        #expect(undelivered.first?.message.value == [1])
        #expect(producer.counters == KafkaProducerCounters(delivered: 0, failed: 1))
    }
}
