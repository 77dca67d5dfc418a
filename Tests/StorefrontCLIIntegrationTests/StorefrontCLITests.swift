import ServiceSettings
import CheckoutService
import CryptoPrimitives
import Foundation
import Kafka
import BillingModel
import Postgres
import ProjectionStore
import ServiceRuntime
import StorefrontCLI
import Synchronization
import Telemetry
import TestSupport
import Testing
import WebhookSenderService

/// Collects what a command prints.
final class Output: Sendable {
    private let lines = Mutex<[String]>([])
    var text: String { lines.withLock { $0.joined(separator: "\n") } }
    func callAsFunction(_ line: String) { lines.withLock { $0.append(line) } }
}

@Suite struct MigrateAndStatusCommandTests {
    let logger = Logger(service: "cli-tests", minimumLevel: .critical)

    @Test func migrateAppliesOnceAndStatusShowsTheCustomer() async throws {
        try await FreshDatabase.with(prefix: "test_cli") { pool, url in
            let environment = Environment(["DATABASE_URL": url])
            let applied = try await MigrateCommand.run(environment: environment, logger: logger)
            #expect(applied.projection == ProjectionSchema.migrations.map(\.version))
            #expect(applied.checkout == CheckoutSchema.migrations.map(\.version))
            #expect(applied.webhookSender == WebhookSenderSchema.migrations.map(\.version))
            func listed(_ versions: [Int]) -> String { versions.map(String.init).joined(separator: ", ") }
            #expect(
                applied.summary
                    == "projection \(listed(ProjectionSchema.migrations.map(\.version))); checkout \(listed(CheckoutSchema.migrations.map(\.version))); "
                    + "webhook-sender \(listed(WebhookSenderSchema.migrations.map(\.version)))"
            )
            #expect(applied.summary.hasPrefix("projection 1, 2, 3, "))
            #expect(try await MigrateCommand.run(environment: environment, logger: logger).isEmpty)

            let renews = Date().addingTimeInterval(86_400 * 20)
            try await pool.execute("INSERT INTO app_users (app_user_id, email) VALUES ('user-7', 'Grace@Example.com')")
            try await pool.execute(
                """
                INSERT INTO subscriptions (provider, subscription_id, app_user_id, customer_email, plan_name, status, renews_at, last_event_key)
                VALUES ('lemonsqueezy', '42', 'user-7', 'grace@example.com', 'Premium', 'active', \(renews), 'k1')
                """)
            let output = Output()
            try await StatusCommand.run(try CommandLineArguments(["status", "grace@example.com"]), environment: environment) { output($0) }
            #expect(output.text.contains("app user: user-7"))
            #expect(output.text.contains("subscription lemonsqueezy:42 status=active active=true owner=user-7 plan=Premium"))
            #expect(output.text.contains("\"active\" : true"))
        }
    }
}

@Suite struct DeadLetterCommandTests {
    let logger = Logger(service: "cli-tests", minimumLevel: .critical)

    @Test func listShowsALetterAndReplaySendsItBackToItsTopic() async throws {
        let brokers = try TestEnvironment.kafkaBrokers().joined(separator: ",")
        let environment = Environment(["KAFKA_BROKERS": brokers])
        let client = KafkaClientConfiguration(bootstrapServers: brokers.split(separator: ",").map(String.init), logHandler: nil)
        // A source topic of this test's own, so replaying touches nothing else.
        let source = "cli-replay-\(UUID().uuidString.prefix(8).lowercased())"
        try await KafkaAdmin(configuration: client).createTopics([
            KafkaTopicSpecification(name: source, partitions: 1), KafkaTopicSpecification(name: Topics.deadLetter, partitions: 6),
        ])
        let letter = DeadLetterRecord(
            sourceTopic: source, sourcePartition: 0, sourceOffset: 7, sourceKey: "lemonsqueezy:sub_1",
            sourceValue: Array("{\"broken\":".utf8), reason: "undecodable envelope", consumer: "cli-tests", failedAt: Date())
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: client))
        _ = try await producer.sendAndAwait(
            KafkaProducerMessage(topic: Topics.deadLetter, key: "lemonsqueezy:sub_1", value: try RecordCoding.encode(letter)))
        _ = await producer.shutdown()

        let listed = Output()
        try await DeadLetterCommand.run(
            try CommandLineArguments(["deadletter", "list", "--topic", source]), environment: environment, logger: logger
        ) { listed($0) }
        #expect(listed.text.contains("from \(source)[0@7] key=lemonsqueezy:sub_1 reason=undecodable envelope"))
        #expect(listed.text.contains("1 dead letter(s)"))

        let group = "cli-replay-\(UUID().uuidString.prefix(8))"
        let replayed = Output()
        try await DeadLetterCommand.run(
            try CommandLineArguments(["deadletter", "replay", "--topic", source, "--group", group]),
            environment: environment, logger: logger
        ) { replayed($0) }
        #expect(replayed.text.contains("replayed 1 dead letter(s)"))
        let again = Output()
        try await DeadLetterCommand.run(
            try CommandLineArguments(["deadletter", "replay", "--topic", source, "--group", group]),
            environment: environment, logger: logger
        ) { again($0) }
        #expect(again.text.contains("replayed 0 dead letter(s)"), "a second replay sends only new letters")

        let first = try await TopicReader.first(topic: source, clientID: "cli-check", timeout: .seconds(15)) { _ in true }
        let replayedRecord = try #require(first, "the replayed record reached its source topic")
        #expect(replayedRecord.value == Array("{\"broken\":".utf8))
        #expect(replayedRecord.key == Array("lemonsqueezy:sub_1".utf8))
    }

    /// Replaying one topic's letters must not mark the others as replayed.
    @Test func aReplayLimitedToOneTopicLeavesTheOthersToReplayLater() async throws {
        let brokers = try TestEnvironment.kafkaBrokers().joined(separator: ",")
        let environment = Environment(["KAFKA_BROKERS": brokers])
        let client = KafkaClientConfiguration(bootstrapServers: brokers.split(separator: ",").map(String.init), logHandler: nil)
        let first = "cli-first-\(UUID().uuidString.prefix(8).lowercased())", second = "cli-second-\(UUID().uuidString.prefix(8).lowercased())"
        try await KafkaAdmin(configuration: client).createTopics([
            KafkaTopicSpecification(name: first, partitions: 1), KafkaTopicSpecification(name: second, partitions: 1),
            KafkaTopicSpecification(name: Topics.deadLetter, partitions: 6),
        ])
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: client))
        for topic in [first, second] {
            let letter = DeadLetterRecord(
                sourceTopic: topic, sourcePartition: 0, sourceOffset: 1, sourceKey: "k", sourceValue: Array("x".utf8),
                reason: "test", consumer: "cli-tests", failedAt: Date())
            // One key, so both letters share a partition and one batch.
            _ = try await producer.sendAndAwait(
                KafkaProducerMessage(topic: Topics.deadLetter, key: "same-key", value: try RecordCoding.encode(letter)))
        }
        _ = await producer.shutdown()
        let group = "cli-replay-\(UUID().uuidString.prefix(8))"
        for topic in [first, second] {
            let replayed = Output()
            try await DeadLetterCommand.run(
                try CommandLineArguments(["deadletter", "replay", "--topic", topic, "--group", group]),
                environment: environment, logger: logger
            ) { replayed($0) }
            #expect(replayed.text.contains("replayed 1 dead letter(s)"), "\(topic): \(replayed.text)")
        }
    }
}
