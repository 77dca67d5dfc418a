import Kafka
import Synchronization
import Testing

/// Eight producers writing one partition at once, read by a consumer that
/// tails it while they write: the situation of two webhook receivers and a
/// projector. Every acknowledged record must be read, in offset order,
/// without gaps.
@Suite struct KafkaConcurrentProducersTests {
    @Test func aConsumerTailingAPartitionWrittenByEightProducersReadsEveryRecord() async throws {
        let brokers = try KafkaTestSupport.brokers()
        let topic = KafkaTestSupport.uniqueName("concurrent")
        try await KafkaTestSupport.createTopic(topic, partitions: 1, brokers: brokers)
        let producers = 8, perProducer = 1500

        let log = LogLines()
        var configuration = KafkaTestSupport.consumerConfiguration(brokers, group: KafkaTestSupport.uniqueName("g"), maxBatchSize: 500)
        configuration.client.logHandler = { level, message in log.append("\(level): \(message)") }
        let consumer = try KafkaConsumer(topics: [topic], configuration: configuration)
        let reading = Task {
            try await KafkaTestSupport.consume(consumer, timeout: .seconds(180), until: { $0.count >= producers * perProducer }) { batch in
                try await consumer.commit(batch)
            }
        }

        let acknowledged = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<producers {
                group.addTask {
                    let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: KafkaTestSupport.client(brokers)))
                    // Awaited in small waves, so requests from the four connections interleave all along.
                    var acknowledged = 0
                    for wave in stride(from: 0, to: perProducer, by: 10) {
                        acknowledged += try await withThrowingTaskGroup(of: Int.self) { sends in
                            for offset in wave..<min(wave + 10, perProducer) {
                                sends.addTask {
                                    _ = try await producer.sendAndAwait(
                                        KafkaProducerMessage(
                                            topic: topic, key: "p\(index)", value: Array("p\(index)-\(offset)".utf8)))
                                    return 1
                                }
                            }
                            return try await sends.reduce(0, +)
                        }
                    }
                    #expect(await producer.shutdown(timeout: .seconds(10)).isEmpty)
                    return acknowledged
                }
            }
            return try await group.reduce(0, +)
        }
        let received = try await reading.value
        await consumer.close()

        // How often the broker showed a batch before the one it acknowledged earlier (varies run to run).
        print("offset gaps re-read: \(log.lines.filter { $0.contains("reading again") }.count)")
        #expect(log.lines.filter { $0.contains("never arrived") || $0.contains("went back") }.isEmpty, "\(log.lines.prefix(5))")
        #expect(acknowledged == producers * perProducer)
        let offsets = received.map(\.offset)
        let gaps = zip(offsets, offsets.dropFirst()).filter { $1 != $0 + 1 }.prefix(5).map { "\($0) → \($1)" }
        #expect(gaps.isEmpty, "offsets jump: \(gaps)")
        #expect(received.count == producers * perProducer, "read \(received.count) of \(producers * perProducer)")
        #expect(Set(received.compactMap(\.value)).count == producers * perProducer)
    }
}

/// librdkafka and consumer log lines, kept for assertions.
final class LogLines: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}
