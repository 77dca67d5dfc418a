import Foundation
import Kafka
import Synchronization
import Testing

/// `KafkaProducer.send(_:onDelivery:)` against the real broker, and against an
/// address where no broker listens (the failure paths).
@Suite struct KafkaCallbackDeliveryTests {
    /// Results by message index; each callback appends, so a second call shows.
    final class Results: Sendable {
        private let byIndex = Mutex<[Int: [Result<KafkaDeliveryReport, KafkaError>]]>([:])
        func record(_ index: Int) -> @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void {
            { result in self.byIndex.withLock { $0[index, default: []].append(result) } }
        }
        var all: [Int: [Result<KafkaDeliveryReport, KafkaError>]] { byIndex.withLock { $0 } }
        var count: Int { byIndex.withLock { $0.values.reduce(0) { $0 + $1.count } } }

        func wait(for count: Int, timeout: Duration) async throws {
            let deadline = ContinuousClock.now.advanced(by: timeout)
            while self.count < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        }
    }

    @Test func everyCallbackHearsItsAcknowledgedOffsetAndTheRecordsAreThere() async throws {
        let brokers = try KafkaTestSupport.brokers()
        let topic = KafkaTestSupport.uniqueName("callback")
        try await KafkaTestSupport.createTopic(topic, partitions: 1, brokers: brokers)
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: KafkaTestSupport.client(brokers)))
        // The first delivery of a new idempotent producer is slow; take it out of the count.
        _ = try await producer.sendAndAwait(KafkaProducerMessage(topic: topic, key: "warm-up", value: []))

        let results = Results()
        for index in 0..<50 {
            producer.send(
                KafkaProducerMessage(topic: topic, key: "key-\(index)", value: Array("value-\(index)".utf8)),
                onDelivery: results.record(index))
        }
        try await results.wait(for: 50, timeout: .seconds(30))
        await producer.shutdown()
        let all = results.all
        #expect(all.count == 50 && all.values.allSatisfy { $0.count == 1 }, "\(results.count) calls for \(all.count) messages")
        let offsets = try (0..<50).map { index in try #require(all[index]?.first).get() }
        #expect(offsets.allSatisfy { $0.topic == topic && $0.partition == 0 })
        #expect(Set(offsets.map(\.offset)) == Set(1...50), "\(offsets.map(\.offset))")

        let consumer = try KafkaConsumer(
            topics: [topic], configuration: KafkaTestSupport.consumerConfiguration(brokers, group: KafkaTestSupport.uniqueName("g")))
        let records = try await KafkaTestSupport.consume(consumer, until: { $0.count >= 51 })
        await consumer.close()
        for (index, report) in offsets.enumerated() {
            let record = try #require(records.first { $0.offset == report.offset })
            #expect(record.key == Array("key-\(index)".utf8) && record.value == Array("value-\(index)".utf8))
        }
    }

    /// No broker answers: librdkafka gives up after `message.timeout.ms`, and
    /// the callback hears `messageTimedOut`, once.
    @Test func anUnreachableBrokerFailsTheCallbackAfterTheMessageTimeout() async throws {
        let producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(
                client: KafkaClientConfiguration(bootstrapServers: ["127.0.0.1:1"], clientID: "kafka-tests", logHandler: nil),
                messageTimeout: .milliseconds(1000)))
        let results = Results()
        let before = ContinuousClock.now
        producer.send(KafkaProducerMessage(topic: "nowhere", key: "k", value: [1]), onDelivery: results.record(0))
        try await results.wait(for: 1, timeout: .seconds(15))
        let elapsed = ContinuousClock.now - before
        let result = try #require(results.all[0]?.first, "not told within 15 s")
        if case .failure(let error) = result { #expect(error.code == .messageTimedOut, "\(error)") } else { Issue.record("delivered nowhere") }
        #expect(elapsed >= .milliseconds(900), "failed before the message timeout: \(elapsed)")
        await producer.shutdown(timeout: .zero)
        #expect(results.all[0]?.count == 1)
    }

    /// A shutdown that cannot deliver purges: every waiting callback hears a
    /// failure at once, not after the 30 s message timeout.
    @Test func shutdownPurgesAndTellsEveryWaitingCallback() async throws {
        let producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(
                client: KafkaClientConfiguration(bootstrapServers: ["127.0.0.1:1"], clientID: "kafka-tests", logHandler: nil),
                messageTimeout: .seconds(30)))
        let results = Results()
        for index in 0..<5 {
            producer.send(KafkaProducerMessage(topic: "nowhere", key: "k", value: [UInt8(index)]), onDelivery: results.record(index))
        }
        #expect(results.count == 0)
        let before = ContinuousClock.now
        await producer.shutdown(timeout: .milliseconds(200))
        try await results.wait(for: 5, timeout: .seconds(5))
        #expect(ContinuousClock.now - before < .seconds(10))
        let all = results.all
        #expect(all.count == 5 && all.values.allSatisfy { $0.count == 1 }, "\(all)")
        #expect(all.values.allSatisfy { if case .failure = $0[0] { true } else { false } })
    }
}
