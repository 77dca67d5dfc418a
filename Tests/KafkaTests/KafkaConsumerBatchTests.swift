@testable import Kafka
import Testing

/// What a batch kept only for its commit holds: no broker.
@Suite struct KafkaConsumerBatchTests {
    static func record(_ topic: String, _ partition: Int32, _ offset: Int64) -> KafkaConsumerRecord {
        KafkaConsumerRecord(
            topic: topic, partition: partition, offset: offset, key: Array("k\(offset)".utf8), value: Array(repeating: 7, count: 4096),
            headers: [KafkaHeader("h", [1])])
    }

    @Test func positionsOnlyCommitsWhatTheBatchWouldWithoutItsPayloads() {
        let batch = KafkaConsumerBatch(
            records: [
                Self.record("a", 0, 10), Self.record("a", 1, 3), Self.record("a", 0, 11), Self.record("b", 0, 7), Self.record("a", 0, 12),
            ],
            consumerID: 42,
            assignmentEpochs: [
                KafkaTopicPartition(topic: "a", partition: 0): 3, KafkaTopicPartition(topic: "a", partition: 1): 3,
                KafkaTopicPartition(topic: "b", partition: 0): 4,
            ])
        let positions = batch.positionsOnly()
        #expect(positions.nextOffsets == batch.nextOffsets)
        #expect(positions.consumerID == 42)
        #expect(positions.assignmentEpochs == batch.assignmentEpochs)
        #expect(positions.records.count == 3, "one per partition")
        #expect(positions.records.allSatisfy { $0.value == nil && $0.key == nil && $0.headers.isEmpty })
    }

    @Test func anEmptyBatchStaysEmpty() {
        let positions = KafkaConsumerBatch(records: [], consumerID: 1, assignmentEpochs: [:]).positionsOnly()
        #expect(positions.records.isEmpty && positions.nextOffsets.isEmpty)
    }
}
