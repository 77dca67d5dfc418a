import Foundation
import Kafka
import TestSupport
import Testing

/// The memory broker killed and started again at once (within the group's
/// session timeout) comes back without the group, the topics or their logs,
/// and the topics return only when a service re-creates them: a consumer that
/// kept its assignment through it read nothing more, even from the
/// re-created topics. It must rejoin and read the new logs from their start.
/// Restarts a broker on purpose, so it uses a PRIVATE Tansu.
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
        // A second subscribed topic that comes back only later (the services
        // re-create their topics each on its own schedule).
        let later = KafkaTestSupport.uniqueName("log-restart-later")
        let messaging = MessagingSettings(
            client: KafkaClientConfiguration(bootstrapServers: [brokers], clientID: "kafka-tests", logHandler: nil), topicPartitions: 2)
        try await messaging.ensureTopics([topic, later])

        func produce(_ values: [String]) async throws {
            let producer = try KafkaProducer(configuration: messaging.producerConfiguration(declaring: [topic], closeTimeout: .seconds(2)))
            for (index, value) in values.enumerated() {
                _ = try await producer.sendAndAwait(KafkaProducerMessage(topic: topic, key: "k-\(index % 5)", value: Array(value.utf8)))
            }
            _ = await producer.shutdown()
        }
        try await produce((0..<4).map { "old-\($0)" })

        let consumer = try KafkaConsumer(
            topics: [topic, later], configuration: KafkaTestSupport.consumerConfiguration([brokers], group: KafkaTestSupport.uniqueName("g")))
        let old = try await KafkaTestSupport.consume(consumer, timeout: .seconds(60), until: { $0.count >= 4 }) { batch in
            _ = try await consumer.commit(batch)
        }
        try #require(old.count == 4, "read \(old.count) of the 4 records before the restart")

        // Killed outright and started again at once, as `make chaos` does: the
        // consumer's connection drops and comes back before its session ends.
        let pidText = try String(contentsOf: state.appendingPathComponent("tansu.pid"), encoding: .utf8)
        let pid = try #require(pid_t(pidText.trimmingCharacters(in: .whitespacesAndNewlines)))
        kill(pid, SIGKILL)
        while kill(pid, 0) == 0 { try await Task.sleep(for: .milliseconds(50)) }
        try await ScriptRunner.run("\(scripts)/tansu.sh", ["start", state.path, port])
        let restarted = ContinuousClock.now
        // The topics come back when a service's producer re-creates them
        // (KafkaTopicKeeper: on its next send or check), seconds later; the
        // consumer meanwhile finds its subscribed topics gone.
        try await Task.sleep(for: .seconds(8))
        try await messaging.ensureTopics([topic, later])
        // More than before, so every old position lies within the new logs (no
        // "offset out of range" to reset it).
        let fresh = (0..<20).map { "new-\($0)" }
        try await produce(fresh)

        let after = try await KafkaTestSupport.consume(
            consumer, timeout: .seconds(60),
            until: { records in
                Set(records.compactMap { $0.value.map { String(decoding: $0, as: UTF8.self) } }).isSuperset(of: fresh)
            }
        ) { batch in
            _ = try? await consumer.commit(batch)
        }
        let values = Set(after.compactMap { $0.value.map { String(decoding: $0, as: UTF8.self) } })
        print("consumer after an empty broker restart: \(after.count) record(s) in \(ContinuousClock.now - restarted)")
        #expect(values.isSuperset(of: fresh), "read after the restart: \(values.sorted())")
        await consumer.close()
    }
}
