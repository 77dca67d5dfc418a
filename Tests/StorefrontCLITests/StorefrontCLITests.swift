import Basics
import CheckoutService
import Crypto
import Foundation
import Kafka
import Models
import Postgres
import Projection
import ServiceRuntime
import StorefrontCLI
import Synchronization
import Telemetry
import TestSupport
import Testing

/// Collects what a command prints.
final class Output: Sendable {
    private let lines = Mutex<[String]>([])
    var text: String { lines.withLock { $0.joined(separator: "\n") } }
    func callAsFunction(_ line: String) { lines.withLock { $0.append(line) } }
}

@Suite struct DevTokenCommandTests {
    @Test func mintsATokenTheCheckoutVerifierAccepts() throws {
        let secret = "cli-test-secret-0123456789abcdef0123456789"
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let token = try DevTokenCommand.run(
            try CommandLineArguments(["dev-token", "--sub", "user-9", "--email", "ada@example.com", "--ttl", "60"]),
            environment: Environment(["AUTH_JWT_SECRET": secret, "AUTH_JWT_ISSUER": "storefront-dev"]), now: now)
        let verifier = JWTVerifier(key: try .hs256(secret: Array(secret.utf8)), issuer: "storefront-dev", now: { now.addingTimeInterval(30) })
        let claims = try verifier.verify(token)
        #expect(claims.subject == "user-9")
        #expect(claims.email == "ada@example.com")
        #expect(claims.expiresAt == now.addingTimeInterval(60))
        #expect(throws: JWTError.self) {
            _ = try JWTVerifier(key: try .hs256(secret: Array(secret.utf8)), leeway: .zero, now: { now.addingTimeInterval(61) }).verify(token)
        }
    }

    @Test func withoutAnEmailTheTokenHasNoEmailClaim() throws {
        let secret = String(repeating: "k", count: 32)
        let token = try DevTokenCommand.run(try CommandLineArguments(["dev-token", "--sub", "u"]), environment: Environment(["AUTH_JWT_SECRET": secret]))
        let claims = try JWTVerifier(key: try .hs256(secret: Array(secret.utf8))).verify(token)
        #expect(claims.subject == "u" && claims.email == nil && claims.raw["email_verified"] == nil)
    }

    @Test func namesWhatIsMissing() throws {
        #expect(throws: CommandLineArguments.UsageError.self) {
            _ = try DevTokenCommand.run(try CommandLineArguments(["dev-token", "--email", "a@b.co"]), environment: Environment(["AUTH_JWT_SECRET": "x"]))
        }
        let error = #expect(throws: ConfigurationError.self) {
            _ = try DevTokenCommand.run(try CommandLineArguments(["dev-token", "--sub", "u", "--email", "a@b.co"]), environment: Environment([:]))
        }
        #expect(error?.variables == ["AUTH_JWT_SECRET"])
    }

    @Test func parsesOptionsInBothSpellings() throws {
        let arguments = try CommandLineArguments(["deadletter", "replay", "--topic=t1", "--group", "g", "--all"])
        #expect(arguments.words == ["deadletter", "replay"])
        #expect(arguments.options == ["topic": "t1", "group": "g", "all": "true"])
    }
}

@Suite struct MigrateAndStatusCommandTests {
    let logger = Logger(service: "cli-tests", minimumLevel: .critical)

    @Test func migrateAppliesOnceAndStatusShowsTheCustomer() async throws {
        let (pool, url) = try await FreshDatabase.create(prefix: "test_cli")
        let environment = Environment(["DATABASE_URL": url])
        let applied = try await MigrateCommand.run(environment: environment, logger: logger)
        #expect(applied.projection == ProjectionSchema.migrations.map(\.version))
        #expect(applied.checkout == CheckoutSchema.migrations.map(\.version))
        #expect(applied.summary == "projection 1, 2, 3, 4, 5, 6; checkout 1, 2")
        #expect(try await MigrateCommand.run(environment: environment, logger: logger).isEmpty)

        let renews = Date().addingTimeInterval(86_400 * 20)
        try await pool.execute("INSERT INTO app_users (app_user_id, email) VALUES ('user-7', 'Grace@Example.com')")
        try await pool.execute("""
            INSERT INTO subscriptions (provider, subscription_id, app_user_id, customer_email, plan_name, status, renews_at, last_event_key)
            VALUES ('lemonsqueezy', '42', 'user-7', 'grace@example.com', 'Premium', 'active', \(renews), 'k1')
            """)
        let output = Output()
        try await StatusCommand.run(try CommandLineArguments(["status", "grace@example.com"]), environment: environment) { output($0) }
        #expect(output.text.contains("app user: user-7"))
        #expect(output.text.contains("subscription lemonsqueezy:42 status=active active=true owner=user-7 plan=Premium"))
        #expect(output.text.contains("\"active\" : true"))
        await pool.close()
    }

    @Test func statusRefusesSomethingThatIsNotAnEmail() async throws {
        await #expect(throws: CommandLineArguments.UsageError.self) {
            try await StatusCommand.run(try CommandLineArguments(["status", "not-an-email"]), environment: Environment([:])) { _ in }
        }
    }
}

@Suite struct DeadLetterCommandTests {
    let logger = Logger(service: "cli-tests", minimumLevel: .critical)

    @Test func listShowsALetterAndReplaySendsItBackToItsTopic() async throws {
        let brokers = try #require(ProcessInfo.processInfo.environment["KAFKA_BROKERS"], "KAFKA_BROKERS is not set (make test starts a broker)")
        let environment = Environment(["KAFKA_BROKERS": brokers])
        let client = KafkaClientConfiguration(bootstrapServers: brokers.split(separator: ",").map(String.init), logHandler: nil)
        // A source topic of this test's own, so replaying touches nothing else.
        let source = "cli-replay-\(UUID().uuidString.prefix(8).lowercased())"
        try await KafkaAdmin(configuration: client).createTopics([
            KafkaTopicSpecification(name: source, partitions: 1), KafkaTopicSpecification(name: Topics.deadLetter, partitions: 6),
        ])
        let letter = DeadLetterRecord(sourceTopic: source, sourcePartition: 0, sourceOffset: 7, sourceKey: "lemonsqueezy:sub_1",
                                      sourceValue: Array("{\"broken\":".utf8), reason: "undecodable envelope", consumer: "cli-tests", failedAt: Date())
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: client))
        _ = try await producer.sendAndAwait(KafkaProducerMessage(topic: Topics.deadLetter, key: "lemonsqueezy:sub_1", value: try RecordCoding.encode(letter)))
        _ = await producer.shutdown()

        let listed = Output()
        try await DeadLetterCommand.run(try CommandLineArguments(["deadletter", "list", "--topic", source]), environment: environment, logger: logger) { listed($0) }
        #expect(listed.text.contains("from \(source)[0@7] key=lemonsqueezy:sub_1 reason=undecodable envelope"))
        #expect(listed.text.contains("1 dead letter(s)"))

        let group = "cli-replay-\(UUID().uuidString.prefix(8))"
        let replayed = Output()
        try await DeadLetterCommand.run(try CommandLineArguments(["deadletter", "replay", "--topic", source, "--group", group]),
                                        environment: environment, logger: logger) { replayed($0) }
        #expect(replayed.text.contains("replayed 1 dead letter(s)"))
        let again = Output()
        try await DeadLetterCommand.run(try CommandLineArguments(["deadletter", "replay", "--topic", source, "--group", group]),
                                        environment: environment, logger: logger) { again($0) }
        #expect(again.text.contains("replayed 0 dead letter(s)"), "a second replay sends only new letters")

        let consumer = try KafkaConsumer(topics: [source], configuration: KafkaConsumerConfiguration(
            client: client, groupID: "cli-check-\(UUID().uuidString.prefix(8))", sessionTimeout: .milliseconds(2000)))
        let batch = try #require(try await consumer.nextBatch(timeout: .seconds(15)), "the replayed record reached its source topic")
        #expect(batch.records.first?.value == Array("{\"broken\":".utf8))
        #expect(batch.records.first?.key == Array("lemonsqueezy:sub_1".utf8))
        await consumer.close()
    }

    /// Replaying one topic's letters must not mark the others as replayed.
    @Test func aReplayLimitedToOneTopicLeavesTheOthersToReplayLater() async throws {
        let brokers = try #require(ProcessInfo.processInfo.environment["KAFKA_BROKERS"], "KAFKA_BROKERS is not set (make test starts a broker)")
        let environment = Environment(["KAFKA_BROKERS": brokers])
        let client = KafkaClientConfiguration(bootstrapServers: brokers.split(separator: ",").map(String.init), logHandler: nil)
        let first = "cli-first-\(UUID().uuidString.prefix(8).lowercased())", second = "cli-second-\(UUID().uuidString.prefix(8).lowercased())"
        try await KafkaAdmin(configuration: client).createTopics([
            KafkaTopicSpecification(name: first, partitions: 1), KafkaTopicSpecification(name: second, partitions: 1),
            KafkaTopicSpecification(name: Topics.deadLetter, partitions: 6),
        ])
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: client))
        for topic in [first, second] {
            let letter = DeadLetterRecord(sourceTopic: topic, sourcePartition: 0, sourceOffset: 1, sourceKey: "k", sourceValue: Array("x".utf8),
                                          reason: "test", consumer: "cli-tests", failedAt: Date())
            // One key, so both letters share a partition and one batch.
            _ = try await producer.sendAndAwait(KafkaProducerMessage(topic: Topics.deadLetter, key: "same-key", value: try RecordCoding.encode(letter)))
        }
        _ = await producer.shutdown()
        let group = "cli-replay-\(UUID().uuidString.prefix(8))"
        for topic in [first, second] {
            let replayed = Output()
            try await DeadLetterCommand.run(try CommandLineArguments(["deadletter", "replay", "--topic", topic, "--group", group]),
                                            environment: environment, logger: logger) { replayed($0) }
            #expect(replayed.text.contains("replayed 1 dead letter(s)"), "\(topic): \(replayed.text)")
        }
    }
}
