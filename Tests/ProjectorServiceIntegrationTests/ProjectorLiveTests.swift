import Foundation
import HTTPServer
import Kafka
import BillingModel
import Postgres
import ProjectionStore
import Entitlements
import ProjectorService
import ServiceRuntime
import Telemetry
import TestSupport
import Testing
import Webhooks

/// Consumes from the real broker (Tansu). Topics are the fixed Storefront
/// ones, shared with other suites: every test uses its own consumer group,
/// a fresh database, and entity ids nobody else uses.
@Suite struct ProjectorLiveTests {
    /// A Lemon Squeezy subscription purchase with ids unique to this run.
    static func uniqueSubscription() throws -> (body: [UInt8], subscriptionID: String, user: String, checkoutID: String) {
        let subscriptionID = String(Int.random(in: 100_000_000...999_999_999))
        let user = Support.unique("user")
        let checkoutID = UUID().uuidString.lowercased()
        let body = try Support.body(
            "lemonsqueezy.webhook.subscription_created.synthetic.json",
            replacing: [
                "880123": subscriptionID,
                "\"webhook_id\": \"": "\"webhook_id\": \"\(UUID().uuidString.lowercased().prefix(8))",
            ], owner: (user, checkoutID))
        return (body, subscriptionID, user, checkoutID)
    }

    static func produce(_ brokers: [String], _ messages: [KafkaProducerMessage]) async throws {
        let client = KafkaClientConfiguration(bootstrapServers: brokers, clientID: "projector-tests")
        try await MessagingSettings(client: client).ensureTopics(Topics.all)
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: client))
        for message in messages { _ = try await producer.sendAndAwait(message) }
        _ = await producer.shutdown()
    }

    static func consumer(
        _ brokers: [String], group: String, topics: [String] = [Topics.webhooks, Topics.checkouts, Topics.commands]
    ) throws -> KafkaConsumer {
        try KafkaConsumer(
            topics: topics,
            configuration: KafkaConsumerConfiguration(
                client: KafkaClientConfiguration(bootstrapServers: brokers, clientID: "projector-tests"), groupID: group,
                maxBatchSize: 500, maxBatchWait: .milliseconds(50)))
    }

    /// Reads batches until every wanted key was seen; returns the batches' records that carry a wanted key.
    static func read(_ consumer: KafkaConsumer, keys: Set<String>, timeout: Duration = .seconds(60)) async throws -> [KafkaConsumerRecord] {
        var found: [KafkaConsumerRecord] = []
        let deadline = ContinuousClock.now + timeout
        while Set(found.compactMap { $0.key.map { String(decoding: $0, as: UTF8.self) } }) != keys {
            try #require(ContinuousClock.now < deadline, "records did not arrive in time")
            guard let batch = try await consumer.nextBatch(timeout: .seconds(1)) else { continue }
            found += batch.records.filter { $0.key.map { keys.contains(String(decoding: $0, as: UTF8.self)) } ?? false }
        }
        return found
    }

    @Test func aConsumerKilledAfterTheWriteButBeforeTheCommitIsAbsorbedOnRedelivery() async throws {
        let brokers = try Support.brokers()
        try await Support.withDatabase { pool in
            let purchase = try Self.uniqueSubscription()
            let envelope = Support.envelope(.lemonsqueezy, purchase.body)
            let key = ProviderWebhookKey.of(purchase.body)
            try await Self.produce(brokers, [KafkaProducerMessage(topic: Topics.webhooks, key: key, value: RecordCoding.encode(envelope))])

            let group = Support.unique("projector-redelivery")
            let first = try Self.consumer(brokers, group: group)
            let records = try await Self.read(first, keys: [key])
            let outcome = try await Support.projector(pool).apply(records)
            #expect(outcome.applied == 1)
            await first.close() // "killed": the write is durable, the offsets were never committed

            let second = try Self.consumer(brokers, group: group)
            let again = try await Self.read(second, keys: [key])
            #expect(again.map(\.offset) == records.map(\.offset), "the uncommitted record is delivered again")
            let redelivered = try await Support.projector(pool).apply(again)
            #expect(redelivered.applied == 0 && redelivered.duplicates == 1)
            await second.close()
            #expect(try await Support.count(pool, "SELECT count(*) FROM billing_events") == 1)
            #expect(try await Support.count(pool, "SELECT count(*) FROM subscriptions WHERE subscription_id = \(purchase.subscriptionID)") == 1)
        }
    }

    @Test func theRunningServiceProjectsDeadLettersAndStopsGracefully() async throws {
        let brokers = try Support.brokers()
        try await Support.withDatabaseAndURL(migrate: false) { pool, url in
            let purchase = try Self.uniqueSubscription()
            let checkout = CheckoutCreatedRecord(
                checkoutID: purchase.checkoutID, provider: .lemonsqueezy, appUserID: purchase.user, email: "b@example.com",
                variantID: CatalogID(provider: .lemonsqueezy, rawID: "1")!, productID: nil, providerCheckoutID: "x",
                url: "https://example.test/c", createdAt: Timestamp.parse("2025-03-01T00:00:00Z")!, expiresAt: nil)
            let garbageKey = "lemonsqueezy:\(Support.unique("garbage"))"
            // Near the 4 MiB message limit: as base64 inside a JSON letter it would not fit.
            let largeKey = "lemonsqueezy:\(Support.unique("large"))"
            let large = [UInt8](repeating: UInt8(ascii: "x"), count: 3_500_000)
            try await Self.produce(
                brokers,
                [
                    KafkaProducerMessage(topic: Topics.checkouts, key: checkout.key, value: try RecordCoding.encode(checkout)),
                    KafkaProducerMessage(topic: Topics.webhooks, key: garbageKey, value: Array("{not an envelope".utf8)),
                    KafkaProducerMessage(topic: Topics.webhooks, key: largeKey, value: large),
                    KafkaProducerMessage(
                        topic: Topics.webhooks, key: ProviderWebhookKey.of(purchase.body),
                        value: RecordCoding.encode(Support.envelope(.lemonsqueezy, purchase.body))),
                ])

            let logger = Logger(service: "projector-tests", minimumLevel: .error)
            let metrics = MetricsRegistry()
            let messaging = MessagingSettings(client: KafkaClientConfiguration(bootstrapServers: brokers, clientID: "projector-tests"))
            let application = try buildProjectorApplication(
                configuration: ProjectorConfiguration(databaseURL: url, ownership: TestOwnership.proof, groupID: Support.unique("projector-live")),
                signer: TestEntitlementSigning.signer,
                messaging: messaging, logger: logger, metrics: metrics)
            let group = ServiceGroup(
                services: [application.consumerService.consumer, application.consumerService], configuration: .init(signals: []), logger: logger)
            let running = Task { try await group.run() }

            let deadline = ContinuousClock.now + .seconds(60)
            func completed() async throws -> Bool {
                guard try await Support.count(pool, "SELECT count(*) FROM pg_tables WHERE tablename = 'checkouts'") > 0 else { return false }
                return try await Support.count(
                    pool, "SELECT count(*) FROM checkouts WHERE checkout_id = \(purchase.checkoutID) AND completed_at IS NOT NULL") > 0
            }
            while try await !completed() {
                try #require(ContinuousClock.now < deadline, "the projector did not complete the checkout in time")
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(
                try await Support.count(
                    pool,
                    "SELECT count(*) FROM subscriptions WHERE subscription_id = \(purchase.subscriptionID) AND app_user_id = \(purchase.user)")
                    == 1)
            let report = await application.health.readiness()
            #expect(report.ok, "ready: \(report.failing.joined(separator: ","))")

            // The garbage record went to the dead-letter topic with its reason.
            let dead = try await TopicReader.first(topic: Topics.deadLetter, clientID: "projector-tests") { $0.key == Array(garbageKey.utf8) }
            let deadRecord = try #require(dead, "records did not arrive in time")
            let letter = try #require(Self.letter(deadRecord))
            #expect(letter.sourceTopic == Topics.webhooks)
            #expect(letter.reason.contains("undecodable webhook envelope"))
            #expect(letter.sourceValue.bytes == Array("{not an envelope".utf8))
            // The large one too, its value byte for byte.
            let largeDead = try await TopicReader.first(topic: Topics.deadLetter, clientID: "projector-tests") { $0.key == Array(largeKey.utf8) }
            let largeRecord = try #require(largeDead, "the large record was not dead-lettered")
            let largeLetter = try #require(Self.letter(largeRecord))
            #expect(largeLetter.sourceValue.bytes == large && largeLetter.omittedSourceValueBytes == nil)
            #expect(application.projector.metrics.deadLettered.current >= 2)

            group.triggerGracefulShutdown(reason: "test")
            try await running.value
            #expect(metrics.renderPrometheus().contains("projector_committed_offset"))
        }
    }
}

extension ProjectorLiveTests {
    /// The letter in a record of the dead-letter topic.
    static func letter(_ record: KafkaConsumerRecord) -> DeadLetterRecord? {
        DeadLetterRecord.fromWire(
            metadata: record.headers.first { $0.name == DeadLetterRecord.metadataHeader }.map { $0.value ?? [] }, value: record.value)
    }
}

/// The key the webhook receiver gives a Lemon Squeezy body.
enum ProviderWebhookKey {
    static func of(_ body: [UInt8]) -> String {
        Webhooks.ProviderWebhooks.read(.lemonsqueezy, body: body, receivedAt: .distantPast).topicKey
    }
}

/// A dead letter is never larger than the message limit allows: a source
/// value that cannot fit beside the letter is left out, and its size noted.
@Suite struct DeadLetterWireTests {
    @Test func aValueTooLargeToKeepIsLeftOutAndNoted() throws {
        let letter = DeadLetterRecord(
            sourceTopic: Topics.webhooks, sourcePartition: 2, sourceOffset: 9, sourceKey: "lemonsqueezy:9",
            sourceValue: [UInt8](repeating: 0x41, count: 10_000), reason: "undecodable webhook envelope", consumer: "p", failedAt: Date())
        let roomy = try KafkaDeadLetterSink.message(letter, topic: Topics.deadLetter, maxMessageBytes: 1 << 20)
        #expect(roomy.value == letter.sourceValue.bytes && roomy.headers.map(\.name) == [DeadLetterRecord.metadataHeader])

        let tight = try KafkaDeadLetterSink.message(letter, topic: Topics.deadLetter, maxMessageBytes: 8_000)
        #expect(tight.value == nil)
        let read = try #require(DeadLetterRecord.fromWire(metadata: tight.headers.first?.value, value: tight.value))
        #expect(read.omittedSourceValueBytes == 10_000 && read.sourceValue.bytes.isEmpty && read.sourceOffset == 9)
        #expect((tight.headers.first?.value?.count ?? .max) < 8_000)
    }
}
