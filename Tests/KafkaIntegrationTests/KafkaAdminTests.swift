import Kafka
import Testing

@Suite struct KafkaAdminTests {
    @Test func createTopicsIsIdempotentAndReportsPartitions() async throws {
        let brokers = try KafkaTestSupport.brokers()
        let admin = try KafkaAdmin(configuration: KafkaTestSupport.client(brokers))
        let topic = KafkaTestSupport.uniqueName("admin")
        let spec = KafkaTopicSpecification(name: topic, partitions: 3, config: ["cleanup.policy": "compact"])
        try await admin.createTopics([spec])
        try await admin.createTopics([spec]) // already exists: still success
        #expect(try await admin.partitionCount(topic: topic) == 3)
    }

    @Test func partitionCountOfMissingTopicThrowsUnknownTopic() async throws {
        let brokers = try KafkaTestSupport.brokers()
        let admin = try KafkaAdmin(configuration: KafkaTestSupport.client(brokers))
        let error = await #expect(throws: KafkaError.self) {
            _ = try await admin.partitionCount(topic: KafkaTestSupport.uniqueName("missing"))
        }
        #expect(error?.code == .unknownTopic)
    }
}
