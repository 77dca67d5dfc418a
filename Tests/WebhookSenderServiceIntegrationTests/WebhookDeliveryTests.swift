import CryptoPrimitives
import Foundation
import Kafka
import BillingModel
import Postgres
import ServiceRuntime
import Telemetry
import TestSupport
import Testing
@testable import WebhookSenderService

/// The webhook sender as it runs: its queue loop on the real broker's
/// `storefront.entitlements.v1`, its dispatcher on a fresh database, sending
/// to a receiving endpoint in the test that verifies every signature.
/// The topic is shared with other suites: each test waits for its own event
/// ids only.
@Suite struct WebhookDeliveryTests {
    static let logger = Logger(service: "webhook-sender-tests", minimumLevel: .error)

    static func change(_ user: String, _ type: EntitlementChange.Kind) -> EntitlementChange {
        EntitlementChange(
            id: UUID().uuidString.lowercased(), type: type, appUserID: user, occurredAt: Date(),
            cause: .init(kind: .providerEvent, provider: .paystack, reference: "paystack:\(UUID().uuidString.prefix(8))"),
            before: EntitlementsResponse(entitlements: []), after: EntitlementsResponse(entitlements: []))
    }

    static func produce(_ changes: [EntitlementChange]) async throws {
        let client = KafkaClientConfiguration(bootstrapServers: try TestEnvironment.kafkaBrokers(), clientID: "webhook-sender-tests")
        try await MessagingSettings(client: client).ensureTopics([Topics.entitlements])
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: client))
        for change in changes {
            _ = try await producer.sendAndAwait(
                KafkaProducerMessage(topic: Topics.entitlements, key: change.key, value: try RecordCoding.encode(change)))
        }
        _ = await producer.shutdown()
    }

    /// Runs the sender (queue loop and dispatcher) against `url` while `body` runs.
    static func withSender(url: String, schedule: RetrySchedule, _ body: () async throws -> Void) async throws {
        var configuration = WebhookSenderConfiguration(databaseURL: url)
        configuration.groupID = "webhook-sender-tests-\(UUID().uuidString.prefix(8))"
        configuration.migrate = false
        configuration.dispatcher.concurrency = 4
        configuration.dispatcher.pollInterval = .milliseconds(100)
        configuration.dispatcher.timeout = .seconds(5)
        configuration.dispatcher.schedule = schedule
        let messaging = MessagingSettings(
            client: KafkaClientConfiguration(bootstrapServers: try TestEnvironment.kafkaBrokers(), clientID: "webhook-sender-tests"))
        let application = try buildWebhookSenderApplication(configuration: configuration, messaging: messaging, logger: logger)
        let group = ServiceGroup(
            services: [application.queueService.consumer, application.queueService, application.dispatcher], configuration: .init(signals: []),
            logger: logger)
        let running = Task { try await group.run() }
        do {
            try await body()
        } catch {
            group.triggerGracefulShutdown()
            _ = try? await running.value
            throw error
        }
        group.triggerGracefulShutdown()
        _ = try? await running.value
    }

    static func register(_ stub: WebhookEndpointStub, secret: String, pool: PostgresPool) async throws -> WebhookEndpoint {
        let endpoint = WebhookEndpoint(id: "ep_" + UUID().uuidString.lowercased(), url: stub.url, secret: secret, eventTypes: [])
        try await EndpointStore(pool: pool).add(endpoint)
        return endpoint
    }

    /// The state of the delivery of event `id` (the test's only endpoint).
    static func state(_ pool: PostgresPool, _ id: String) async throws -> String? {
        try await pool.query("SELECT state FROM webhook_deliveries WHERE event_id = \(id)").first?.decode(String.self)
    }

    static func waitFor(_ what: String, timeout: Duration = .seconds(60), _ done: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while try await !done() {
            try #require(ContinuousClock.now < deadline, "timed out waiting for \(what)")
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test func anEndpointDownForAWhileGetsEverythingAfterwardsOncePerChangeInOrderPerUser() async throws {
        try await FreshDatabase.with(prefix: "test_webhook_sender") { pool, url in
            try await WebhookSenderSchema.migrate(pool: pool)
            let secret = try StandardWebhookSignature.generateSecret()
            let stub = try WebhookEndpointStub.start(secret: secret)
            stub.answer(503)
            _ = try await Self.register(stub, secret: secret, pool: pool)
            let alice = "alice-\(UUID().uuidString.prefix(6))", bob = "bob-\(UUID().uuidString.prefix(6))"
            let changes = [
                Self.change(alice, .granted), Self.change(bob, .granted), Self.change(alice, .renewed), Self.change(alice, .expiring),
                Self.change(bob, .refunded),
            ]
            let ids = Set(changes.map(\.id))
            try await Self.withSender(url: url, schedule: RetrySchedule(delays: Array(repeating: .milliseconds(300), count: 40))) {
                try await Self.produce(changes)
                // Down: the first of each user's changes is tried again and again, the later ones wait behind it.
                try await Self.waitFor("attempts while the endpoint is down") { stub.attempts(for: ids) >= 6 }
                #expect(!stub.received.contains { ids.contains($0.webhookID) })
                stub.answer(204)
                try await Self.waitFor("every change delivered") { Set(stub.received.map(\.webhookID)).isSuperset(of: ids) }
                // Nothing is sent again once delivered.
                try await Task.sleep(for: .seconds(1))
            }
            let mine = stub.received.filter { ids.contains($0.webhookID) }
            #expect(mine.count == changes.count, "each change once")
            for user in [alice, bob] {
                #expect(
                    mine.map(\.webhookID).filter { id in changes.first { $0.id == id }?.appUserID == user }
                        == changes.filter { $0.appUserID == user }.map(\.id))
            }
            #expect(stub.rejected == 0, "every request verified")
            // The body is the topic's record, byte for byte.
            let first = try #require(mine.first { $0.webhookID == changes[0].id })
            #expect(first.body == (try RecordCoding.encode(changes[0])))
            await stub.stop()
        }
    }

    @Test func aDeliveryPastItsScheduleIsDeadUntilReplayed() async throws {
        try await FreshDatabase.with(prefix: "test_webhook_sender") { pool, url in
            try await WebhookSenderSchema.migrate(pool: pool)
            let secret = try StandardWebhookSignature.generateSecret()
            let stub = try WebhookEndpointStub.start(secret: secret)
            stub.answer(500)
            let endpoint = try await Self.register(stub, secret: secret, pool: pool)
            let change = Self.change("carol-\(UUID().uuidString.prefix(6))", .billingIssue)
            let deliveries = DeliveryStore(pool: pool)
            try await Self.withSender(url: url, schedule: RetrySchedule(delays: [.milliseconds(200), .milliseconds(200)])) {
                try await Self.produce([change])
                try await Self.waitFor("the delivery dead-lettered") { try await Self.state(pool, change.id) == "dead" }
                let attempts = stub.attempts(for: [change.id])
                #expect(attempts >= 3, "the first attempt and two retries")
                try await Task.sleep(for: .seconds(1))
                #expect(stub.attempts(for: [change.id]) == attempts, "a dead delivery is not tried again")
                stub.answer(204)
                #expect(try await deliveries.replay(endpointID: endpoint.id, eventID: change.id) == 1)
                try await Self.waitFor("the replayed delivery") { stub.received.contains { $0.webhookID == change.id } }
            }
            #expect(try await Self.state(pool, change.id) == "delivered")
            #expect((try await deliveries.counts()[endpoint.id]?.delivered ?? 0) >= 1)
            await stub.stop()
        }
    }
}
