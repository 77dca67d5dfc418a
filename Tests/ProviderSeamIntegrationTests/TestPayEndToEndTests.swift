import Foundation
import HTTPClient
import HTTPServer
import Kafka
import BillingModel
import Entitlements
import Postgres
import ProjectionStore
import ProjectorService
import ServiceRuntime
import ServiceSettings
import Telemetry
import TestSupport
import Testing
import WebhookReceiverService
import Webhooks

/// TestPay, a provider declared in this test target alone, flows like the
/// built-in ones: the real receiver verifies its signed webhook at
/// `/api/webhooks/testpay` and publishes it to the real broker, the real
/// projector folds it into PostgreSQL, and the entitlement answer grants
/// what the entitlements file maps its plan to, until the subscription ends.
@Suite("A provider added from a test target alone")
struct TestPayEndToEndTests {
    static let secret = Secret("testpay-webhook-secret")
    static let logger = Logger(service: "provider-seam-tests", minimumLevel: .critical)
    static let entitlements = """
        {"entitlements": {"pro": {"testpay": {"plans": ["tp_pro"]}}}}
        """

    /// A TestPay delivery for `subscriptionID`, owned (with Storefront's proof) by `user`.
    static func delivery(
        type: String, subscriptionID: String, status: String, user: String, checkoutID: String, at time: String, periodEnd: String
    ) -> [UInt8] {
        let metadata = TestOwnership.customDataJSON(appUserID: user, checkoutID: checkoutID)
        return Array(
            """
            {"id":"evt_\(UUID().uuidString.prefix(12))","type":"\(type)","created":"\(time)","livemode":false,
             "subscription":{"id":"\(subscriptionID)","status":"\(status)","plan":"tp_pro","created":"2026-11-01T00:00:00Z",
              "current_period_end":"\(periodEnd)","metadata":\(metadata)}}
            """.utf8)
    }

    @Test("a signed TestPay webhook reaches the entitlement answer; a forged one is refused")
    func webhookToEntitlement() async throws {
        TestPayProvider.register()
        let brokers = try TestEnvironment.kafkaBrokers()
        let messaging = MessagingSettings(client: KafkaClientConfiguration(bootstrapServers: brokers, clientID: "provider-seam-tests"))
        try await messaging.ensureTopics(Topics.all)
        var http = HTTPServerConfiguration()
        http.bindAddress = "127.0.0.1"
        http.port = 0
        let receiver = try buildWebhookReceiverApplication(
            verifiers: [TestPayProvider().verifier(secret: Self.secret)], messaging: messaging, http: http, logger: Self.logger,
            metrics: MetricsRegistry())
        let group = ServiceGroup(services: receiver.services, configuration: .init(stopTimeout: .seconds(10), signals: []), logger: Self.logger)
        let running = Task { try await group.run() }
        defer { group.triggerGracefulShutdown(reason: "test done") }
        #expect(await eventually(timeout: .seconds(60)) { receiver.server.port != nil })
        let url = "http://127.0.0.1:\(try #require(receiver.server.port))/api/webhooks/testpay"
        let client = HTTPClient(configuration: HTTPClientConfiguration(timeout: .seconds(20), retryPolicy: .none))

        let user = "user-\(UUID().uuidString.prefix(8).lowercased())", checkoutID = UUID().uuidString.lowercased()
        let subscriptionID = String(Int.random(in: 100_000_000...999_999_999))
        func post(_ body: [UInt8], signature: String? = nil) async throws -> Int {
            let header = TestPayProvider().signatureHeader(body: body, secret: Self.secret, at: Date())
            return try await client.post(url, headers: HTTPHeaders([(header.name, signature ?? header.value)]), body: body).status
        }

        let created = Self.delivery(
            type: "subscription.created", subscriptionID: subscriptionID, status: "active", user: user, checkoutID: checkoutID,
            at: "2026-11-01T00:00:00Z", periodEnd: "2026-12-01T00:00:00Z")
        #expect(try await post(created, signature: String(repeating: "0", count: 64)) == 401, "a forged signature is refused")
        #expect(try await post(created) == 200)
        let expired = Self.delivery(
            type: "subscription.expired", subscriptionID: subscriptionID, status: "expired", user: user, checkoutID: checkoutID,
            at: "2026-11-20T00:00:00Z", periodEnd: "2026-12-01T00:00:00Z")

        let consumer = try KafkaConsumer(
            topics: [Topics.webhooks],
            configuration: KafkaConsumerConfiguration(
                client: messaging.client, groupID: "provider-seam-\(UUID().uuidString.prefix(8))", maxBatchSize: 500,
                maxBatchWait: .milliseconds(50)))
        let key = "testpay:sub_\(subscriptionID)"
        try await FreshDatabase.with(prefix: "test_provider_seam") { pool, _ in
            try await ProjectionSchema.migrate(pool: pool)
            let projector = Projector(
                writer: ProjectionWriter(
                    pool: pool, outbox: EntitlementOutbox(resolver: EntitlementResolver(policy: AccessPolicy(testDeployment: true)))),
                deadLetters: DiscardingSink(), metrics: ProjectorMetrics(registry: MetricsRegistry()), ownership: TestOwnership.proof,
                consumerName: "provider-seam-tests", logger: Self.logger)
            let resolver = EntitlementResolver(
                configuration: try EntitlementsConfiguration.parse(Array(Self.entitlements.utf8)), policy: AccessPolicy(testDeployment: true))
            let reader = SubscriptionStatusReader(pool: pool, resolver: resolver)
            func pro(at time: String) async throws -> EntitlementInfo? {
                let snapshot = try await reader.snapshot(for: ProjectionUser(appUserID: user, verifiedEmail: nil), at: Timestamp.parse(time)!)
                return snapshot.entitlements.first { $0.identifier == "pro" }
            }

            try await Self.project(consumer, key: key, count: 1, with: projector)
            let granted = try #require(try await pro(at: "2026-11-10T00:00:00Z"), "the plan grants `pro`")
            #expect(granted.isActive && granted.provider == .testpay && granted.source == .subscription)
            #expect(granted.expiresAt == Timestamp.parse("2026-12-01T00:00:00Z"))

            #expect(try await post(expired) == 200)
            try await Self.project(consumer, key: key, count: 1, with: projector)
            #expect(try await pro(at: "2026-11-21T00:00:00Z")?.isActive != true, "an expired subscription grants nothing")
        }
        await consumer.close()
        group.triggerGracefulShutdown(reason: "test done")
        try await running.value
    }

    /// Reads the webhook topic until `count` records under `key` arrived, and projects them.
    static func project(_ consumer: KafkaConsumer, key: String, count: Int, with projector: Projector) async throws {
        var found: [KafkaConsumerRecord] = []
        let deadline = ContinuousClock.now + .seconds(60)
        while found.count < count {
            try #require(ContinuousClock.now < deadline, "the TestPay record did not arrive in time")
            guard let batch = try await consumer.nextBatch(timeout: .seconds(1)) else { continue }
            found += batch.records.filter { $0.key.map { String(decoding: $0, as: UTF8.self) } == key }
        }
        let outcome = try await projector.apply(found)
        #expect(outcome.applied == found.count, "every TestPay record is applied, none dead-lettered")
    }
}

/// Dead letters are not expected here; `apply`'s outcome counts them.
struct DiscardingSink: DeadLetterSink {
    func send(_ letters: [DeadLetterRecord]) async throws {}
}
