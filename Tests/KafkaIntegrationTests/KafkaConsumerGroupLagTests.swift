import Kafka
import Testing

@Suite struct KafkaConsumerGroupLagTests {
    @Test func lagFollowsCommitsWithoutTheReaderJoiningTheGroup() async throws {
        let brokers = try KafkaTestSupport.brokers()
        let topic = KafkaTestSupport.uniqueName("lag")
        let group = KafkaTestSupport.uniqueName("g")
        try await KafkaTestSupport.createTopic(topic, partitions: 2, brokers: brokers)
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: KafkaTestSupport.client(brokers)))
        // One record per request (awaited), so every record is its own batch:
        // Tansu 0.6 answers ListOffsets(latest) with the last batch's base
        // offset + 1 (see KafkaConsumerGroupLagReader), which is exact then.
        for index in 0..<10 {
            // 6 records on partition 0, 4 on partition 1.
            _ = try await producer.sendAndAwait(KafkaProducerMessage(topic: topic, partition: index < 6 ? 0 : 1, key: "k\(index)", value: []))
        }
        #expect(await producer.shutdown().isEmpty)

        let reader = try KafkaConsumerGroupLagReader(configuration: KafkaTestSupport.client(brokers), groupID: group)
        let before = try await reader.lag(topic: topic, timeout: .seconds(30))
        #expect(before.groupID == group && before.topic == topic)
        #expect(before.partitions.map(\.partition) == [0, 1])
        #expect(before.partitions.map(\.highWatermark) == [6, 4])
        #expect(before.partitions.map(\.committedOffset) == [nil, nil])
        #expect(before.totalLag == 10)

        // The reader holds the group's id but never joins: the only member gets both partitions.
        let consumer = try KafkaConsumer(
            topics: [topic], configuration: KafkaTestSupport.consumerConfiguration(brokers, group: group, maxBatchSize: 100))
        var seen = 0
        _ = try await KafkaTestSupport.consume(consumer, until: { _ in seen >= 10 }) { batch in
            seen += batch.records.count
            let result = try await consumer.commit(batch)
            #expect(result.isComplete)
        }
        #expect(seen == 10)
        #expect(consumer.assignment.count == 2, "the lag reader must not take partitions: \(consumer.assignment)")

        let after = try await reader.lag(topic: topic, timeout: .seconds(30))
        #expect(after.partitions.map(\.committedOffset) == [6, 4])
        #expect(after.partitions.map(\.lag) == [0, 0])
        #expect(after.totalLag == 0)
        await consumer.close()
    }

    @Test func lagOfAMissingTopicThrowsUnknownTopic() async throws {
        let brokers = try KafkaTestSupport.brokers()
        let reader = try KafkaConsumerGroupLagReader(configuration: KafkaTestSupport.client(brokers), groupID: KafkaTestSupport.uniqueName("g"))
        let error = await #expect(throws: KafkaError.self) {
            _ = try await reader.lag(topic: KafkaTestSupport.uniqueName("missing"))
        }
        #expect(error?.code == .unknownTopic)
    }
}
