import Foundation
import Kafka
import Synchronization
import TestSupport
import Testing

/// A broker stopped by its pid and started again on the same port, as an
/// operator would: the memory broker comes back empty, without the topics and
/// without the producer's id. Restarts a broker on purpose, so it uses a
/// PRIVATE Tansu, never the shared one.
@Suite struct KafkaBrokerRestartTests {
    /// The partitions the topic is declared with (Tansu auto-creates 4).
    static let declaredPartitions = 6
    /// Sends after the restart; each is retried, as a caller answering 503 would be.
    static let sendsAfterRestart = 20

    /// With a short message timeout the stuck handle is replaced when its
    /// records time out; with the checkout's 30 s, when they stall after the
    /// dropped connection, well before the timeout.
    @Test(arguments: [3, 30])
    func producerPublishesAgainAfterTheBrokerRestartsAndTheTopicComesBackAsDeclared(messageTimeoutSeconds: Int) async throws {
        let scripts = try ScriptRunner.scriptsFolder()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent(KafkaTestSupport.uniqueName("tansu-restart"))
        try await ScriptRunner.run("\(scripts)/tansu.sh", ["start", state.path])
        let outcome = await Result(catching: {
            try await exercise(scripts: scripts, state: state, messageTimeout: .seconds(messageTimeoutSeconds))
        })
        try? await ScriptRunner.run("\(scripts)/tansu.sh", ["stop", state.path])
        if case .failure = outcome, let log = try? String(contentsOf: state.appendingPathComponent("tansu.log"), encoding: .utf8) {
            print("tansu.log (last 4000 characters):\n\(log.suffix(4000))")
        }
        try? FileManager.default.removeItem(at: state)
        try outcome.get()
    }

    private func exercise(scripts: String, state: URL, messageTimeout: Duration) async throws {
        let brokers = try TestEnvironment.setting("KAFKA_BROKERS", inEnvFile: state.appendingPathComponent("kafka.env").path)
        let port = try #require(brokers.split(separator: ":").last.map(String.init))
        let topic = KafkaTestSupport.uniqueName("restart")
        let messaging = MessagingSettings(
            client: KafkaClientConfiguration(bootstrapServers: [brokers], clientID: "kafka-tests", logHandler: nil),
            topicPartitions: Self.declaredPartitions, topicCheckInterval: .seconds(2))
        try await messaging.ensureTopics([topic])

        let reported = FailureLog()
        var configuration = messaging.producerConfiguration(declaring: [topic], messageTimeout: messageTimeout, closeTimeout: .seconds(2))
        configuration.deliveryFailureHandler = { reported.add($0) }
        let producer = try KafkaProducer(configuration: configuration)
        // Run as the services run it: the loop that replaces a lost handle and re-creates topics.
        let service = Task { try await producer.run() }
        var enqueued = 0

        // A new idempotent producer's first delivery is slow on a busy machine: allow retries.
        var ready: KafkaDeliveryReport?
        for _ in 0..<5 where ready == nil {
            enqueued += 1
            ready = try? await producer.sendAndAwait(KafkaProducerMessage(topic: topic, key: "k", value: Array("before".utf8)))
        }
        try #require(ready != nil, "the producer never reached the broker before the restart")

        try await ScriptRunner.run("\(scripts)/tansu.sh", ["stop", state.path])
        try await ScriptRunner.run("\(scripts)/tansu.sh", ["start", state.path, port])
        let restarted = ContinuousClock.now

        // A fire-and-forget record right after the restart: delivered or reported, never lost.
        enqueued += 1
        try producer.send(KafkaProducerMessage(topic: topic, key: "ff", value: Array("fire-and-forget".utf8)))
        // While the stuck handle owes it, readiness says so (the services' /readyz asks this).
        try await Task.sleep(for: .milliseconds(1500))
        #expect(producer.publishingStatus.problem(window: .seconds(1)) != nil, "ready while a record waits: \(producer.publishingStatus)")

        // Each value is retried until acknowledged, as a provider retries a webhook answered 503.
        var firstDelivery: Duration?
        var acknowledged: Set<String> = []
        var retried: Set<String> = []
        let deadline = restarted.advanced(by: .seconds(90))
        for index in 0..<Self.sendsAfterRestart {
            let value = "after-\(index)"
            while !acknowledged.contains(value), ContinuousClock.now < deadline {
                enqueued += 1
                do {
                    _ = try await producer.sendAndAwait(KafkaProducerMessage(topic: topic, key: "k-\(index % 7)", value: Array(value.utf8)))
                    acknowledged.insert(value)
                    if firstDelivery == nil { firstDelivery = ContinuousClock.now - restarted }
                } catch let error as KafkaError where [.enqueueFailed, .queueFull].contains(error.code) {
                    enqueued -= 1 // never reached librdkafka's queue, so no delivery report will count it
                    retried.insert(value)
                } catch {
                    retried.insert(value)
                }
            }
        }
        let recovery = try #require(firstDelivery, "no send succeeded within 90 s of the restart")
        print(
            "broker restart (message timeout \(messageTimeout)): first delivery \(recovery) after the restart, "
                + "\(producer.publishingStatus.rebuilds) handle replacement(s)")
        // The stuck handle goes after its 3 s timeout, or 5 s of stall after the dropped connection; then
        // one InitProducerId and the topic's re-creation. Never the 30 s timeout itself.
        #expect(recovery < .seconds(15), "the first delivery after the restart took \(recovery)")
        #expect(acknowledged.count == Self.sendsAfterRestart)
        #expect(producer.publishingStatus.problem(window: .seconds(10)) == nil, "\(producer.publishingStatus)")

        // The topic came back with its declared partitions, not the broker's auto-create default.
        let admin = try KafkaAdmin(configuration: messaging.client)
        #expect(try await admin.partitionCount(topic: topic) == Self.declaredPartitions)

        // Every acknowledged record is there; only values whose send failed and was retried may repeat.
        let consumer = try KafkaConsumer(
            topics: [topic], configuration: KafkaTestSupport.consumerConfiguration([brokers], group: KafkaTestSupport.uniqueName("g")))
        let records = try await KafkaTestSupport.consume(consumer, timeout: .seconds(60)) { records in
            Set(records.compactMap { $0.value.map { String(decoding: $0, as: UTF8.self) } }).isSuperset(of: acknowledged)
        }
        await consumer.close()
        var copies: [String: Int] = [:]
        for record in records {
            copies[String(decoding: record.value ?? [], as: UTF8.self), default: 0] += 1
        }
        for value in acknowledged {
            let count = copies[value, default: 0]
            #expect(count >= 1, "acknowledged \(value) is missing")
            if !retried.contains(value) { #expect(count == 1, "\(value) was sent once and is there \(count) times") }
        }

        service.cancel()
        try? await service.value
        // Every record enqueued was either delivered or reported failed (the retired handles' purges included).
        let settled = ContinuousClock.now.advanced(by: .seconds(10))
        while producer.counters.delivered + producer.counters.failed < enqueued, ContinuousClock.now < settled {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(producer.counters.delivered + producer.counters.failed == enqueued, "\(producer.counters) for \(enqueued) enqueued")
        let fireAndForgetDelivered = copies["fire-and-forget", default: 0] > 0
        #expect(
            fireAndForgetDelivered || reported.values.contains("fire-and-forget"), "the fire-and-forget record was neither delivered nor reported")
        #expect(producer.publishingStatus.rebuilds >= 1, "the restart never made the producer replace its handle")
    }
}

/// The fire-and-forget records a producer reported undelivered.
private final class FailureLog: Sendable {
    private let storage = Mutex<[String]>([])
    var values: [String] { storage.withLock { $0 } }
    func add(_ undelivered: KafkaUndeliveredMessage) {
        let value = String(decoding: undelivered.message.value ?? [], as: UTF8.self)
        storage.withLock { $0.append(value) }
    }
}
