import Foundation
import Kafka
import Synchronization
import TestSupport
import Testing

/// Stops a broker on purpose, so it uses a PRIVATE Tansu, never the shared one.
@Suite struct KafkaBrokerDownTests {
    @Test func producerErrorsSurfaceWhenTheBrokerIsDown() async throws {
        let scripts = try ScriptRunner.scriptsFolder()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent(KafkaTestSupport.uniqueName("tansu-down"))
        try await ScriptRunner.run("\(scripts)/tansu.sh", ["start", state.path])
        // The test stops the broker itself; stop it again (harmless) should it fail early.
        let outcome = await Result(catching: { try await exercise(scripts: scripts, state: state) })
        try? await ScriptRunner.run("\(scripts)/tansu.sh", ["stop", state.path])
        try? FileManager.default.removeItem(at: state)
        try outcome.get()
    }

    /// A frozen broker (SIGSTOP) outlasts the message timeout, so the idempotent
    /// producer's id gets fenced; once the broker is back, sends work again.
    @Test func producerRecoversAfterAnOutageLongerThanItsMessageTimeout() async throws {
        let scripts = try ScriptRunner.scriptsFolder()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent(KafkaTestSupport.uniqueName("tansu-pause"))
        try await ScriptRunner.run("\(scripts)/tansu.sh", ["start", state.path])
        let pid = try #require(
            pid_t(
                String(contentsOf: state.appendingPathComponent("tansu.pid"), encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)))
        let outcome = await Result(catching: {
            let brokers = try Self.brokers(in: state)
            let topic = KafkaTestSupport.uniqueName("pause")
            try await KafkaTestSupport.createTopic(topic, partitions: 1, brokers: [brokers])
            let producer = try KafkaProducer(
                configuration: KafkaProducerConfiguration(
                    client: KafkaClientConfiguration(bootstrapServers: [brokers], clientID: "kafka-tests", logHandler: nil),
                    messageTimeout: .milliseconds(1000)))
            // A new idempotent producer's first delivery is slow on a busy machine: allow retries
            // (each timed-out one also makes the producer start over with a new handle).
            var ready: KafkaDeliveryReport?
            for _ in 0..<20 where ready == nil {
                ready = try? await producer.sendAndAwait(KafkaProducerMessage(topic: topic, key: "k", value: Array("before".utf8)))
            }
            try #require(ready != nil, "the producer never reached the broker before the outage")

            kill(pid, SIGSTOP)
            // Until one send fails: seen once under heavy load, the first sends after the
            // SIGSTOP still came back delivered (not explained yet).
            var failures = 0
            for _ in 0..<10 where failures == 0 {
                do {
                    _ = try await producer.sendAndAwait(KafkaProducerMessage(topic: topic, key: "k", value: Array("during".utf8)))
                } catch {
                    failures += 1
                }
            }
            kill(pid, SIGCONT)
            #expect(failures > 0, "no send failed while the broker was frozen")

            // The first sends after the outage may still meet the fenced id; later ones must succeed.
            var delivered: KafkaDeliveryReport?
            for _ in 0..<10 where delivered == nil {
                delivered = try? await producer.sendAndAwait(KafkaProducerMessage(topic: topic, key: "k", value: Array("after".utf8)))
            }
            #expect(delivered != nil, "the producer never recovered after the broker came back")
            _ = await producer.shutdown(timeout: .seconds(1))
        })
        kill(pid, SIGCONT)
        try? await ScriptRunner.run("\(scripts)/tansu.sh", ["stop", state.path])
        try? FileManager.default.removeItem(at: state)
        try outcome.get()
    }

    private static func brokers(in state: URL) throws -> String {
        try TestEnvironment.setting("KAFKA_BROKERS", inEnvFile: state.appendingPathComponent("kafka.env").path)
    }

    private func exercise(scripts: String, state: URL) async throws {
        let brokers = try Self.brokers(in: state)

        let topic = KafkaTestSupport.uniqueName("down")
        try await KafkaTestSupport.createTopic(topic, partitions: 1, brokers: [brokers])
        let logged = LogCollector()
        let client = KafkaClientConfiguration(bootstrapServers: [brokers], clientID: "kafka-tests", logHandler: logged.handler)
        let producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(client: client, messageTimeout: .milliseconds(1500)))
        let before = try await producer.sendAndAwait(KafkaProducerMessage(topic: topic, key: "up", value: Array("1".utf8)))
        #expect(before.offset == 0)

        try await ScriptRunner.run("\(scripts)/tansu.sh", ["stop", state.path])

        let error = await #expect(throws: KafkaError.self) {
            _ = try await producer.sendAndAwait(KafkaProducerMessage(topic: topic, key: "down", value: Array("2".utf8)))
        }
        #expect(error?.code == .messageTimedOut, "\(String(describing: error))")
        #expect(error?.rdKafkaCode != nil)

        // A fire-and-forget message still queued at shutdown is reported back.
        try producer.send(KafkaProducerMessage(topic: topic, key: "queued", value: Array("3".utf8)))
        let undelivered = await producer.shutdown(timeout: .milliseconds(200))
        #expect(undelivered.map(\.message.key) == [Array("queued".utf8)])
        #expect(producer.counters == KafkaProducerCounters(delivered: 1, failed: 2))
        #expect(throws: KafkaError.self) { try producer.send(KafkaProducerMessage(topic: topic, key: "late", value: [])) }
        #expect(logged.lines.contains { $0.level >= .warning }, "librdkafka's complaints reach the log handler")
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// Keeps log lines in memory instead of printing them.
private final class LogCollector: Sendable {
    private let storage = Mutex<[(level: KafkaLogLevel, text: String)]>([])
    var lines: [(level: KafkaLogLevel, text: String)] { storage.withLock { $0 } }
    var handler: KafkaLogHandler { { [storage = self] level, text in storage.append(level, text) } }
    private func append(_ level: KafkaLogLevel, _ text: String) { storage.withLock { $0.append((level, text)) } }
}
