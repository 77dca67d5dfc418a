import CryptoPrimitives
import Foundation
import Kafka
import BillingModel
import Postgres
import ServiceRuntime
import Telemetry
import TestSupport
import Testing
import EntitlementSigning
@testable import WebhookSenderService

/// The webhook sender as it runs: its queue loop on the real broker's
/// `storefront.entitlements.v1` and `storefront.purchase-events.v1`, its
/// dispatcher on a fresh database, sending to receiving endpoints in the
/// test that verify every signature. The topics are shared with other
/// suites: each test waits for its own event ids only.
@Suite struct WebhookDeliveryTests {
    static let logger = Logger(service: "webhook-sender-tests", minimumLevel: .error)

    static func change(_ user: String, _ type: EntitlementChange.Kind) -> EntitlementChange {
        EntitlementChange(
            id: UUID().uuidString.lowercased(), type: type, appUserID: user, occurredAt: Date(),
            cause: .init(kind: .providerEvent, provider: .paystack, reference: "paystack:\(UUID().uuidString.prefix(8))"),
            before: EntitlementsResponse(entitlements: []), after: EntitlementsResponse(entitlements: []))
    }

    static func produce(_ changes: [EntitlementChange]) async throws {
        // Signed as the projector's relay signs them: the sender queues nothing else.
        try await produce(
            changes.map {
                TestEntitlementSigning.signed(KafkaProducerMessage(topic: Topics.entitlements, key: $0.key, value: try RecordCoding.encode($0)))
            })
    }

    static func produce(_ messages: [KafkaProducerMessage]) async throws {
        let client = KafkaClientConfiguration(bootstrapServers: try TestEnvironment.kafkaBrokers(), clientID: "webhook-sender-tests")
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: client))
        for message in messages { _ = try await producer.sendAndAwait(message) }
        _ = await producer.shutdown()
    }

    /// Runs the sender (queue loop and dispatcher) against `url` while `body`
    /// runs, its topics created first (the migrate job and the other services
    /// create them in a stack).
    static func withSender(
        url: String, schedule: RetrySchedule, timeout: Duration = .seconds(5), endpointConcurrency: Int = 2, logger: Logger = Self.logger,
        metrics: MetricsRegistry = MetricsRegistry(),
        _ body: () async throws -> Void
    ) async throws {
        try await MessagingSettings(
            client: KafkaClientConfiguration(bootstrapServers: try TestEnvironment.kafkaBrokers(), clientID: "webhook-sender-tests")
        ).ensureTopics(DeliveryQueueService.topics)
        var configuration = WebhookSenderConfiguration(databaseURL: url)
        configuration.groupID = "webhook-sender-tests-\(UUID().uuidString.prefix(8))"
        configuration.migrate = false
        configuration.dispatcher.concurrency = 4
        configuration.dispatcher.pollInterval = .milliseconds(100)
        configuration.dispatcher.timeout = timeout
        configuration.dispatcher.endpointConcurrency = endpointConcurrency
        configuration.dispatcher.schedule = schedule
        let messaging = MessagingSettings(
            client: KafkaClientConfiguration(bootstrapServers: try TestEnvironment.kafkaBrokers(), clientID: "webhook-sender-tests"))
        let application = try buildWebhookSenderApplication(
            configuration: configuration, verifier: TestEntitlementSigning.verifier, messaging: messaging, logger: logger, metrics: metrics)
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

    static func register(
        _ stub: WebhookEndpointStub, secret: String, types: Set<String> = [], pool: PostgresPool
    ) async throws -> WebhookEndpoint {
        // The stubs listen on loopback: allowed explicitly, as `add --allow-private` does.
        let endpoint = WebhookEndpoint(
            id: "ep_" + UUID().uuidString.lowercased(), url: stub.url, secret: secret, eventTypes: types, allowPrivateTargets: true)
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

    @Test func aChangeTheProjectorDidNotSignIsNeverSent() async throws {
        try await FreshDatabase.with(prefix: "test_webhook_sender") { pool, url in
            try await WebhookSenderSchema.migrate(pool: pool)
            let secret = try StandardWebhookSignature.generateSecret()
            let stub = try WebhookEndpointStub.start(secret: secret)
            _ = try await Self.register(stub, secret: secret, pool: pool)
            let user = "erin-\(UUID().uuidString.prefix(6))", other = "fay-\(UUID().uuidString.prefix(6))"
            func message(_ change: EntitlementChange, topic: String = Topics.entitlements, key: String? = nil) throws -> KafkaProducerMessage {
                KafkaProducerMessage(topic: topic, key: key ?? change.key, value: try RecordCoding.encode(change))
            }
            let unsigned = Self.change(user, .granted), forged = Self.change(user, .granted)
            let tampered = Self.change(user, .revoked), moved = Self.change(user, .granted), rekeyed = Self.change(other, .granted)
            let real = Self.change(user, .granted)
            // A real signature over another value, another topic or another key, moved onto this record.
            var tamperedMessage = TestEntitlementSigning.signed(try message(Self.change(user, .renewed)))
            tamperedMessage.value = try RecordCoding.encode(tampered)
            var movedMessage = TestEntitlementSigning.signed(try message(moved, topic: Topics.purchaseEvents))
            movedMessage.topic = Topics.entitlements
            var rekeyedMessage = TestEntitlementSigning.signed(try message(rekeyed, key: other))
            rekeyedMessage.key = Array(user.utf8)
            let forgeries = [unsigned, forged, tampered, moved, rekeyed]
            let metrics = MetricsRegistry()
            try await Self.withSender(url: url, schedule: RetrySchedule(delays: [.milliseconds(200)]), metrics: metrics) {
                // All under the user's key, so in one partition, read in this order: the real change last.
                try await Self.produce([
                    try message(unsigned), try EntitlementChangeSigner(try RecordSigner.generate()).signed(try message(forged)), tamperedMessage,
                    movedMessage, rekeyedMessage, TestEntitlementSigning.signed(try message(real)),
                ])
                try await Self.waitFor("the signed change delivered") { stub.received.contains { $0.webhookID == real.id } }
            }
            let forgedIDs = Set(forgeries.map(\.id))
            #expect(!stub.received.contains { forgedIDs.contains($0.webhookID) }, "no forgery reached the endpoint")
            #expect(stub.attempts(for: forgedIDs) == 0)
            let queued = try await pool.query("SELECT event_id FROM webhook_deliveries WHERE app_user_id IN (\(user), \(other))").map {
                try $0.decode(String.self)
            }
            #expect(queued == [real.id], "only the signed change was queued")
            let text = metrics.renderPrometheus()
            #expect(text.contains(#"storefront_entitlement_changes_rejected_total{reason="unsigned"} 1"#))
            #expect(text.contains(#"storefront_entitlement_changes_rejected_total{reason="unknown_key"} 1"#))
            #expect(text.contains(#"storefront_entitlement_changes_rejected_total{reason="bad_signature"} 3"#))
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

extension WebhookDeliveryTests {
    @Test func aRedemptionLinkGoesOnceSignedAndByteForByteOnlyToEndpointsThatWantItAndNeverIntoTheLogs() async throws {
        try await FreshDatabase.with(prefix: "test_webhook_sender") { pool, url in
            try await WebhookSenderSchema.migrate(pool: pool)
            let secret = try StandardWebhookSignature.generateSecret(), otherSecret = try StandardWebhookSignature.generateSecret()
            // Every type (no filter), and one filtered to the entitlement types, as endpoints registered before this type existed are.
            let everything = try WebhookEndpointStub.start(secret: secret)
            let entitlementsOnly = try WebhookEndpointStub.start(secret: otherSecret)
            let all = try await Self.register(everything, secret: secret, pool: pool)
            let filtered = try await Self.register(
                entitlementsOnly, secret: otherSecret, types: Set(EntitlementChange.Kind.allCases.map(\.rawValue)), pool: pool)
            let token = "rt_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let link = PurchaseEvent.redemptionIssued(
                id: UUID().uuidString.lowercased(), occurredAt: Date(),
                purchase: .init(provider: .lemonsqueezy, type: .subscription, id: "sub-\(UUID().uuidString.prefix(8))"),
                email: "buyer-\(UUID().uuidString.prefix(6))@example.com", redemptionURL: "https://shop.example.com/redeem/\(token)",
                expiresAt: Date().addingTimeInterval(3600), ref: "spring-sale")
            let change = Self.change("dora-\(UUID().uuidString.prefix(6))", .granted)
            let linkRecord = KafkaProducerMessage(topic: Topics.purchaseEvents, key: link.key, value: try RecordCoding.encode(link))
            // Everything the sender logs, at every level.
            let logs = CapturingLogSink()
            let verbose = Logger(service: "webhook-sender-tests", minimumLevel: .trace, sink: logs)
            // The first attempt fails, so the failure path logs too.
            everything.answer(503)
            try await Self.withSender(url: url, schedule: RetrySchedule(delays: Array(repeating: .milliseconds(300), count: 20)), logger: verbose) {
                // The same link twice (a producer's repeat), and an entitlement change beside it.
                try await Self.produce([
                    linkRecord,
                    TestEntitlementSigning.signed(
                        KafkaProducerMessage(topic: Topics.entitlements, key: change.key, value: try RecordCoding.encode(change))),
                    linkRecord,
                ])
                try await Self.waitFor("a failed attempt at the link") { everything.attempts(for: [link.id]) >= 1 }
                everything.answer(204)
                try await Self.waitFor("the link and the change at the endpoint that takes every type") {
                    Set(everything.received.map(\.webhookID)).isSuperset(of: [link.id, change.id])
                }
                try await Self.waitFor("the change at the filtered endpoint") { entitlementsOnly.received.contains { $0.webhookID == change.id } }
                // Nothing more comes once delivered.
                try await Task.sleep(for: .seconds(1))
            }
            let delivered = everything.received.filter { $0.webhookID == link.id }
            #expect(delivered.count == 1, "one link, sent once")
            #expect(delivered.first?.body == (try RecordCoding.encode(link)), "the record, byte for byte")
            #expect(everything.rejected == 0 && entitlementsOnly.rejected == 0, "every request verified with its endpoint's secret")
            #expect(entitlementsOnly.attempts(for: [link.id]) == 0, "an endpoint filtered to entitlement types never sees a link")
            let rows = try await pool.query(
                "SELECT endpoint_id, event_type, app_user_id, state FROM webhook_deliveries WHERE event_id = \(link.id)"
            ).map { try $0.decode((String, String, String, String).self) }
            #expect(rows.count == 1)
            #expect(
                rows.first?.0 == all.id && rows.first?.1 == "purchase.redemption_issued" && rows.first?.2 == link.key && rows.first?.3 == "delivered")
            #expect(try await pool.query("SELECT 1 FROM webhook_deliveries WHERE endpoint_id = \(filtered.id) AND event_id = \(link.id)").isEmpty)
            let lines = logs.lines
            #expect(lines.contains { $0.contains(link.id) }, "the failed attempt was logged, by the event's id")
            #expect(!lines.contains { $0.contains(token) || $0.contains(link.email ?? "-") }, "no log line holds the link or the email")
            await everything.stop()
            await entitlementsOnly.stop()
        }
    }
}
