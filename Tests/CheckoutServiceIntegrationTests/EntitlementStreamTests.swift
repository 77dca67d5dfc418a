import CheckoutService
import Foundation
import HTTPServer
import Kafka
import BillingModel
import Telemetry
import TestSupport
import Testing
import CryptoPrimitives
import EntitlementSigning

/// The live stream through the real broker: changes published to
/// `storefront.entitlements.v1` (as the projector's outbox will) reach the
/// long poll of their user, and only theirs.
@Suite struct EntitlementStreamTests {
    static func event(_ id: String, user: String) -> [UInt8] {
        Array(
            #"""
            {"id":"\#(id)","type":"entitlement.granted","app_user_id":"\#(user)","occurred_at":"2026-12-02T03:00:00Z","cause":{"kind":"webhook","provider":"lemonsqueezy","reference":"evt"},"before":{"success":true,"entitlements":[]},"after":{"success":true,"entitlements":[]}}
            """#.utf8)
    }

    /// Publishes a change as the projector's outbox relay does: signed.
    static func publish(_ harness: Harness, key: String, value: [UInt8]) async throws {
        try await publish(harness, TestEntitlementSigning.signed(KafkaProducerMessage(topic: Topics.entitlements, key: key, value: value)))
    }

    static func publish(_ harness: Harness, _ message: KafkaProducerMessage) async throws {
        _ = try await harness.publisher.producer.sendAndAwait(message)
    }

    /// Runs `body` with a listener feeding `harness`'s hub from the topic,
    /// once a change published now is known to arrive (a fresh group starts
    /// at the latest offset, so earlier ones would pass unseen).
    static func withListener(_ harness: Harness, metrics: MetricsRegistry = MetricsRegistry(), _ body: () async throws -> Void) async throws {
        let client = KafkaClientConfiguration(bootstrapServers: try TestEnvironment.kafkaBrokers(), clientID: "checkout-stream-tests")
        try await KafkaAdmin(configuration: client).createTopics([KafkaTopicSpecification(name: Topics.entitlements, partitions: 6)])
        let consumer = try KafkaConsumer(
            topics: [Topics.entitlements], configuration: EntitlementChangeTopic.consumerConfiguration(client: client, replica: "tests"))
        let listener = EntitlementChangeListener(
            consumer: consumer, hub: harness.app.changes, verifier: TestEntitlementSigning.verifier,
            logger: Logger(service: "stream-tests", minimumLevel: .critical),
            metrics: metrics)
        let running = Task { try await listener.run() }
        do {
            try await waitUntil("the stream's consumer is assigned") { listener.isAssigned }
            let warm = "warm-\(UUID().uuidString.prefix(8))"
            let warmToken = try Harness.token(sub: warm, email: nil)
            try await waitUntil("a change published now reaches the stream") {
                async let seen = harness.request(.get, "/api/entitlements/stream?wait=2", token: warmToken)
                try await Task.sleep(for: .milliseconds(100))
                try await Self.publish(harness, key: warm, value: event(UUID().uuidString, user: warm))
                return try await seen.text.contains(warm)
            }
            try await body()
        } catch {
            running.cancel()
            await consumer.close()
            throw error
        }
        running.cancel()
        await consumer.close()
    }

    @Test func aChangeReachesItsUsersStreamAndNoOtherOne() async throws {
        try await Harness.with { harness in
            try await Self.withListener(harness) {
                let ada = "ada-\(UUID().uuidString.prefix(8))", bob = "bob-\(UUID().uuidString.prefix(8))"
                let adaToken = try Harness.token(sub: ada, email: nil), bobToken = try Harness.token(sub: bob, email: nil)
                async let adaPoll = harness.request(.get, "/api/entitlements/stream?wait=20", token: adaToken)
                async let bobPoll = harness.request(.get, "/api/entitlements/stream?wait=3", token: bobToken)
                try await waitUntil("both polls wait") { harness.app.changes.waitingPolls >= 2 }
                let first = Self.event("evt-\(ada)-1", user: ada)
                try await Self.publish(harness, key: ada, value: first)

                let adaAnswer = try await adaPoll
                #expect(adaAnswer.status == .ok && adaAnswer.headers["Cache-Control"] == "no-store")
                #expect(
                    adaAnswer.text == #"{"success":true,"events":["# + String(decoding: first, as: UTF8.self)
                        + #"],"cursor":"evt-\#(ada)-1","reset":false}"#,
                    "the value is forwarded byte for byte")
                let bobAnswer = try await bobPoll
                #expect(bobAnswer.text == #"{"success":true,"events":[],"cursor":null,"reset":false}"#, "another user's stream gets nothing")

                // What came while no poll was open is answered from memory, after the cursor.
                let second = Self.event("evt-\(ada)-2", user: ada)
                try await Self.publish(harness, key: ada, value: second)
                try await waitUntil("the second change is in memory") {
                    try await harness.request(.get, "/api/entitlements/stream?wait=1&after=evt-\(ada)-1", token: adaToken).text
                        .contains("evt-\(ada)-2")
                }
                let unknown = try await harness.request(.get, "/api/entitlements/stream?after=evt-never", token: adaToken)
                #expect(unknown.text == #"{"success":true,"events":[],"cursor":null,"reset":true}"#)
            }
        }
    }

    @Test func aChangeTheProjectorDidNotSignNeverReachesTheStream() async throws {
        try await Harness.with { harness in
            let metrics = MetricsRegistry()
            try await Self.withListener(harness, metrics: metrics) {
                let ada = "ada-\(UUID().uuidString.prefix(8))", bob = "bob-\(UUID().uuidString.prefix(8))"
                let adaToken = try Harness.token(sub: ada, email: nil)
                let before = "evt-\(ada)-before"
                try await Self.publish(harness, key: ada, value: Self.event(before, user: ada))
                // A known cursor (not a reset) means the change is in the stream's memory.
                try await waitUntil("the first real change is in memory") {
                    try await harness.request(.get, "/api/entitlements/stream?wait=1&after=\(before)", token: adaToken).text.contains(
                        #""reset":false"#)
                }
                // Forgeries, all under ada's key (one partition, so read before the real change after them).
                let forger = EntitlementChangeSigner(try RecordSigner.generate())
                let message = { (id: String) in KafkaProducerMessage(topic: Topics.entitlements, key: ada, value: Self.event(id, user: ada)) }
                var tampered = TestEntitlementSigning.signed(message("evt-\(ada)-tampered"))
                tampered.value = Self.event("evt-\(ada)-tampered-2", user: ada)
                var moved = TestEntitlementSigning.signed(
                    KafkaProducerMessage(topic: Topics.purchaseEvents, key: ada, value: Self.event("evt-\(ada)-moved", user: ada)))
                moved.topic = Topics.entitlements
                var rekeyed = TestEntitlementSigning.signed(
                    KafkaProducerMessage(topic: Topics.entitlements, key: bob, value: Self.event("evt-\(ada)-rekeyed", user: ada)))
                rekeyed.key = Array(ada.utf8)
                for forged in [
                    message("evt-\(ada)-unsigned"), try forger.signed(message("evt-\(ada)-forged")), tampered, moved, rekeyed,
                ] {
                    try await Self.publish(harness, forged)
                }
                let real = "evt-\(ada)-real"
                try await Self.publish(harness, key: ada, value: Self.event(real, user: ada))

                var answer = ""
                try await waitUntil("the real change after the forgeries is in memory") {
                    answer = try await harness.request(.get, "/api/entitlements/stream?wait=1&after=\(before)", token: adaToken).text
                    return answer.contains(real)
                }
                #expect(
                    answer == #"{"success":true,"events":["# + String(decoding: Self.event(real, user: ada), as: UTF8.self)
                        + #"],"cursor":"\#(real)","reset":false}"#,
                    "only the signed change after the cursor")
                let text = metrics.renderPrometheus()
                #expect(text.contains(#"storefront_entitlement_changes_rejected_total{reason="unsigned"} 1"#))
                #expect(text.contains(#"storefront_entitlement_changes_rejected_total{reason="unknown_key"} 1"#))
                #expect(text.contains(#"storefront_entitlement_changes_rejected_total{reason="bad_signature"} 3"#))
            }
        }
    }
}
