import Kafka
import Testing

@Suite struct KafkaRoundTripTests {
    @Test func producedRecordsComeBackWithKeysHeadersAndBatchLimit() async throws {
        let brokers = try KafkaTestSupport.brokers()
        let topic = KafkaTestSupport.uniqueName("roundtrip")
        try await KafkaTestSupport.createTopic(topic, partitions: 1, brokers: brokers)

        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: KafkaTestSupport.client(brokers)))
        let sent = (0..<25).map { index in
            KafkaProducerMessage(
                topic: topic, key: "key-\(index)", value: Array("value-\(index)".utf8),
                headers: [KafkaHeader("index", "\(index)"), KafkaHeader("trace", [0, 1, 2, UInt8(index)]), KafkaHeader("empty", nil)])
        }
        for message in sent {
            try producer.send(message)
        }
        let undelivered = await producer.shutdown(timeout: .seconds(10))
        #expect(undelivered.isEmpty)
        #expect(producer.counters == KafkaProducerCounters(delivered: 25, failed: 0))

        let consumer = try KafkaConsumer(
            topics: [topic],
            configuration: KafkaTestSupport.consumerConfiguration(brokers, group: KafkaTestSupport.uniqueName("g"), maxBatchSize: 10))
        var batchSizes: [Int] = []
        let received = try await KafkaTestSupport.consume(consumer, until: { $0.count >= 25 }) { batch in
            batchSizes.append(batch.records.count)
            let result = try await consumer.commit(batch)
            #expect(result.isComplete)
        }
        await consumer.close()

        #expect(received.count == 25)
        #expect(batchSizes.allSatisfy { $0 <= 10 }, "batch sizes \(batchSizes)")
        #expect(batchSizes.contains(10), "with 25 records waiting, a full batch of 10 is expected: \(batchSizes)")
        #expect(received.map(\.key) == sent.map(\.key))
        #expect(received.map(\.value) == sent.map(\.value))
        #expect(received.map(\.headers) == sent.map(\.headers))
        #expect(received.map(\.offset) == Array(0..<25))
        #expect(received.allSatisfy { $0.timestampMilliseconds != nil })
    }

    @Test func sendAndAwaitReturnsTheAcknowledgedOffset() async throws {
        let brokers = try KafkaTestSupport.brokers()
        let topic = KafkaTestSupport.uniqueName("await")
        try await KafkaTestSupport.createTopic(topic, partitions: 2, brokers: brokers)

        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: KafkaTestSupport.client(brokers)))
        _ = try await producer.sendAndAwait(KafkaProducerMessage(topic: topic, partition: 1, key: "first", value: Array("a".utf8)))
        let report = try await producer.sendAndAwait(
            KafkaProducerMessage(topic: topic, partition: 1, key: "second", value: Array("b".utf8)))
        #expect(producer.counters.delivered == 2)
        await producer.shutdown()
        #expect(report.topic == topic)
        #expect(report.partition == 1)
        #expect(report.offset == 1)

        let consumer = try KafkaConsumer(
            topics: [topic], configuration: KafkaTestSupport.consumerConfiguration(brokers, group: KafkaTestSupport.uniqueName("g")))
        let records = try await KafkaTestSupport.consume(consumer, until: { $0.count >= 2 })
        await consumer.close()
        let atReport = try #require(records.first { $0.partition == report.partition && $0.offset == report.offset })
        #expect(atReport.key == Array("second".utf8))
        #expect(atReport.value == Array("b".utf8))
    }
}
