import Foundation
@testable import Kafka
import TestSupport
import Testing

/// A group whose committed offset lies past the end of its partition's log,
/// as after a broker that lost records (the memory broker restarted empty)
/// took a commit from the old log. Kafka answers a fetch there with "offset
/// out of range" and the client resets; Tansu answers with nothing, so a
/// member starting there would wait, silently, until the log grew that long
/// (`make chaos`'s broker-kill recovery took minutes, once over 300 s). The
/// member must notice and read the log from its start.
@Suite struct KafkaConsumerPastLogEndTests {
    @Test func aMemberStartingPastTheLogsEndReadsItFromTheStart() async throws {
        let brokers = try KafkaTestSupport.brokers()
        let topic = KafkaTestSupport.uniqueName("past-end")
        let group = KafkaTestSupport.uniqueName("g")
        try await KafkaTestSupport.createTopic(topic, partitions: 1, brokers: brokers)
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: KafkaTestSupport.client(brokers)))
        func produce(_ values: [String]) async throws {
            for value in values {
                _ = try await producer.sendAndAwait(KafkaProducerMessage(topic: topic, key: "k", value: Array(value.utf8)))
            }
        }
        try await produce((0..<5).map { "first-\($0)" })

        // A member reads them, then commits offset 60 under its own assignment: the stale commit.
        let first = try KafkaConsumer(topics: [topic], configuration: KafkaTestSupport.consumerConfiguration(brokers, group: group))
        var read: KafkaConsumerBatch?
        _ = try await KafkaTestSupport.consume(first, timeout: .seconds(60), until: { $0.count >= 5 }) { read = $0 }
        let real = try #require(read)
        let past = KafkaConsumerBatch(
            records: [KafkaConsumerRecord(topic: topic, partition: 0, offset: 59, key: nil, value: nil)],
            consumerID: real.consumerID, assignmentEpochs: real.assignmentEpochs)
        let commit = try await first.commit(past)
        try #require(commit.committed[KafkaTopicPartition(topic: topic, partition: 0)] == 60, "the stale commit did not land: \(commit)")
        await first.close()

        let second = try KafkaConsumer(topics: [topic], configuration: KafkaTestSupport.consumerConfiguration(brokers, group: group))
        let fresh = (0..<5).map { "later-\($0)" }
        try await produce(fresh)
        let records = try await KafkaTestSupport.consume(
            second, timeout: .seconds(45),
            until: { records in
                Set(records.compactMap { $0.value.map { String(decoding: $0, as: UTF8.self) } }).isSuperset(of: fresh)
            }
        ) { batch in
            _ = try? await second.commit(batch)
        }
        let values = Set(records.compactMap { $0.value.map { String(decoding: $0, as: UTF8.self) } })
        #expect(values.isSuperset(of: fresh), "read from a committed offset past the log's end: \(values.sorted())")
        await second.close()
        _ = await producer.shutdown()
    }
}
