import Kafka
import Synchronization
import TestSupport
import Testing

@Suite struct KafkaConsumerGroupTests {
    @Test func twoMembersSplitPartitionsAndReadEveryRecordOnce() async throws {
        let brokers = try KafkaTestSupport.brokers()
        let topic = KafkaTestSupport.uniqueName("group")
        let group = KafkaTestSupport.uniqueName("g")
        try await KafkaTestSupport.createTopic(topic, partitions: 4, brokers: brokers)

        let configuration = KafkaTestSupport.consumerConfiguration(brokers, group: group, maxBatchSize: 5)
        let first = try KafkaConsumer(topics: [topic], configuration: configuration)
        let second = try KafkaConsumer(topics: [topic], configuration: configuration)
        // Produce only once the group is stable, so no rebalance redelivers anything.
        try await waitUntil("both members own partitions") {
            !first.assignment.isEmpty && !second.assignment.isEmpty
                && first.assignment.count + second.assignment.count == 4
        }
        #expect(first.assignment.isDisjoint(with: second.assignment))

        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: KafkaTestSupport.client(brokers)))
        for index in 0..<40 {
            try producer.send(
                KafkaProducerMessage(
                    topic: topic, partition: Int32(index % 4), key: "id-\(index)", value: Array("\(index)".utf8)))
        }
        #expect(await producer.shutdown().isEmpty)

        let total = SharedCount()
        async let firstRecords = consumeShare(first, total: total, expected: 40)
        async let secondRecords = consumeShare(second, total: total, expected: 40)
        let (a, b) = try await (firstRecords, secondRecords)
        await first.close()
        await second.close()

        #expect(!a.isEmpty && !b.isEmpty, "both members should receive records: \(a.count) / \(b.count)")
        let partitionsA = Set(a.map(\.partition)), partitionsB = Set(b.map(\.partition))
        #expect(partitionsA.isDisjoint(with: partitionsB), "\(partitionsA) vs \(partitionsB)")
        let keys = (a + b).compactMap(\.key).map { String(decoding: $0, as: UTF8.self) }
        #expect(keys.count == 40)
        #expect(Set(keys) == Set((0..<40).map { "id-\($0)" }))
    }

    @Test func uncommittedRecordsOfADroppedConsumerAreRedelivered() async throws {
        let brokers = try KafkaTestSupport.brokers()
        let topic = KafkaTestSupport.uniqueName("redeliver")
        let group = KafkaTestSupport.uniqueName("g")
        try await KafkaTestSupport.createTopic(topic, partitions: 1, brokers: brokers)
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: KafkaTestSupport.client(brokers)))
        for index in 0..<20 {
            try producer.send(KafkaProducerMessage(topic: topic, key: "order-\(index)", value: Array("\(index)".utf8)))
        }
        #expect(await producer.shutdown().isEmpty)

        // The "database": applying a record twice must not count it twice.
        var store: [String: Int] = [:]
        var applications = 0
        func apply(_ records: [KafkaConsumerRecord]) {
            for record in records {
                store[String(decoding: record.key ?? [], as: UTF8.self)] = Int(String(decoding: record.value ?? [], as: UTF8.self))
                applications += 1
            }
        }
        let configuration = KafkaTestSupport.consumerConfiguration(brokers, group: group, maxBatchSize: 10)

        // First member: commits the first batch, writes the second, then dies before committing it.
        var doomed: KafkaConsumer? = try KafkaConsumer(topics: [topic], configuration: configuration)
        let committedBatch = try #require(try await firstBatch(doomed!))
        apply(committedBatch.records)
        #expect(try await doomed!.commit(committedBatch).isComplete)
        let lostBatch = try #require(try await firstBatch(doomed!))
        apply(lostBatch.records)
        let lostOffsets = lostBatch.records.map(\.offset)
        doomed = nil // dropped without committing; deinit leaves the group

        let successor = try KafkaConsumer(topics: [topic], configuration: configuration)
        let redelivered = try await KafkaTestSupport.consume(successor, until: { $0.count >= 20 - committedBatch.records.count }) { batch in
            apply(batch.records)
            try await successor.commit(batch)
        }
        await successor.close()

        #expect(!lostOffsets.isEmpty)
        #expect(redelivered.first?.offset == Int64(committedBatch.records.count), "resumes after the committed batch")
        #expect(Set(lostOffsets).isSubset(of: Set(redelivered.map(\.offset))))
        #expect(applications == 20 + lostOffsets.count, "the uncommitted batch was applied twice")
        #expect(store.count == 20)
        #expect(store == Dictionary(uniqueKeysWithValues: (0..<20).map { ("order-\($0)", $0) }))
    }

    @Test func commitSkipsPartitionsRevokedSinceTheBatchWasHandedOut() async throws {
        let brokers = try KafkaTestSupport.brokers()
        let topic = KafkaTestSupport.uniqueName("revoke")
        let group = KafkaTestSupport.uniqueName("g")
        try await KafkaTestSupport.createTopic(topic, partitions: 2, brokers: brokers)
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: KafkaTestSupport.client(brokers)))
        for index in 0..<10 {
            try producer.send(KafkaProducerMessage(topic: topic, partition: Int32(index % 2), key: "k\(index)", value: []))
        }
        #expect(await producer.shutdown().isEmpty)

        let configuration = KafkaTestSupport.consumerConfiguration(brokers, group: group, maxBatchSize: 100)
        let first = try KafkaConsumer(topics: [topic], configuration: configuration)
        // Hold every batch, uncommitted, until both partitions were seen.
        var held: [KafkaConsumerBatch] = []
        _ = try await KafkaTestSupport.consume(first, until: { Set($0.map(\.partition)).count == 2 }) { held.append($0) }
        #expect(first.assignment.count == 2)

        // A second member joins: the eager rebalance revokes both partitions from the first.
        let second = try KafkaConsumer(topics: [topic], configuration: configuration)
        try await waitUntil("the group rebalanced") {
            first.assignment.count == 1 && second.assignment.count == 1
        }
        for batch in held {
            let result = try await first.commit(batch)
            #expect(result.committed.isEmpty, "revoked partitions must not be committed: \(result)")
            #expect(Set(result.skipped.values) == [.revoked])
            #expect(Set(result.skipped.keys) == Set(batch.nextOffsets.keys))
        }
        await first.close()
        await second.close()
    }
}

// MARK: - Helpers

private func firstBatch(_ consumer: KafkaConsumer) async throws -> KafkaConsumerBatch? {
    let deadline = ContinuousClock.now.advanced(by: .seconds(30))
    while ContinuousClock.now < deadline {
        if let batch = try await consumer.nextBatch(timeout: .milliseconds(500)) { return batch }
    }
    return nil
}

private func consumeShare(_ consumer: KafkaConsumer, total: SharedCount, expected: Int) async throws -> [KafkaConsumerRecord] {
    var mine: [KafkaConsumerRecord] = []
    let deadline = ContinuousClock.now.advanced(by: .seconds(30))
    while total.value < expected, ContinuousClock.now < deadline {
        guard let batch = try await consumer.nextBatch(timeout: .milliseconds(200)) else { continue }
        mine += batch.records
        total.add(batch.records.count)
        #expect(try await consumer.commit(batch).isComplete)
    }
    return mine
}

/// A count both members of a group add to.
private final class SharedCount: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func add(_ amount: Int) { count.withLock { $0 += amount } }
}
