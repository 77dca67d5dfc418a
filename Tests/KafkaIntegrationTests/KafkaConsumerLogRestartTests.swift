import Foundation
import Kafka
import TestSupport
import Testing

/// The memory broker restarted quickly (within the group's session timeout)
/// comes back with empty logs: a consumer that keeps its assignment would
/// keep fetching from its old offsets, past the end of the new logs, and
/// read nothing more. It must notice the log went back and read the new one
/// from its beginning. Restarts a broker on purpose, so it uses a PRIVATE Tansu.
@Suite struct KafkaConsumerLogRestartTests {
    @Test func aConsumerReadsTheNewLogAfterTheBrokerCameBackEmpty() async throws {
        let scripts = try ScriptRunner.scriptsFolder()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent(KafkaTestSupport.uniqueName("tansu-log-restart"))
        try await ScriptRunner.run("\(scripts)/tansu.sh", ["start", state.path])
        let outcome = await Result(catching: { try await exercise(scripts: scripts, state: state) })
        try? await ScriptRunner.run("\(scripts)/tansu.sh", ["stop", state.path])
        try? FileManager.default.removeItem(at: state)
        try outcome.get()
    }

    private func exercise(scripts: String, state: URL) async throws {
        let brokers = try TestEnvironment.setting("KAFKA_BROKERS", inEnvFile: state.appendingPathComponent("kafka.env").path)
        let port = try #require(brokers.split(separator: ":").last.map(String.init))
        let topic = KafkaTestSupport.uniqueName("log-restart")
        let messaging = MessagingSettings(
            client: KafkaClientConfiguration(bootstrapServers: [brokers], clientID: "kafka-tests", logHandler: nil), topicPartitions: 2)
        try await messaging.ensureTopics([topic])

        func produce(_ values: [String]) async throws {
            let producer = try KafkaProducer(configuration: messaging.producerConfiguration(declaring: [topic], closeTimeout: .seconds(2)))
            for (index, value) in values.enumerated() {
                _ = try await producer.sendAndAwait(KafkaProducerMessage(topic: topic, key: "k-\(index % 5)", value: Array(value.utf8)))
            }
            _ = await producer.shutdown()
        }
        try await produce((0..<400).map { "old-\($0)" })

        let consumer = try KafkaConsumer(
            topics: [topic], configuration: KafkaTestSupport.consumerConfiguration([brokers], group: KafkaTestSupport.uniqueName("g")))
        let old = try await KafkaTestSupport.consume(consumer, timeout: .seconds(60), until: { $0.count >= 400 }) { batch in
            _ = try await consumer.commit(batch)
        }
        try #require(old.count == 400, "read \(old.count) of the 400 records before the restart")

        try await ScriptRunner.run("\(scripts)/tansu.sh", ["stop", state.path])
        try await ScriptRunner.run("\(scripts)/tansu.sh", ["start", state.path, port])
        let restarted = ContinuousClock.now
        try await messaging.ensureTopics([topic])
        let fresh = (0..<5).map { "new-\($0)" }
        try await produce(fresh)

        let after = try await KafkaTestSupport.consume(consumer, timeout: .seconds(60), until: { records in
            Set(records.compactMap { $0.value.map { String(decoding: $0, as: UTF8.self) } }).isSuperset(of: fresh)
        }) { batch in
            _ = try? await consumer.commit(batch)
        }
        let values = Set(after.compactMap { $0.value.map { String(decoding: $0, as: UTF8.self) } })
        print("consumer after an empty broker restart: \(after.count) record(s) in \(ContinuousClock.now - restarted)")
        #expect(values.isSuperset(of: fresh), "read after the restart: \(values.sorted())")
        await consumer.close()
    }
}
