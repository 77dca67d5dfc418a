import CheckoutService
import Foundation
import HTTPServer
import Kafka
import BillingModel
import Telemetry
import TestSupport
import Testing

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

    /// Runs `body` with a listener feeding `harness`'s hub from the topic,
    /// once a change published now is known to arrive (a fresh group starts
    /// at the latest offset, so earlier ones would pass unseen).
    static func withListener(_ harness: Harness, _ body: () async throws -> Void) async throws {
        let client = KafkaClientConfiguration(bootstrapServers: try TestEnvironment.kafkaBrokers(), clientID: "checkout-stream-tests")
        try await KafkaAdmin(configuration: client).createTopics([KafkaTopicSpecification(name: Topics.entitlements, partitions: 6)])
        let consumer = try KafkaConsumer(
            topics: [Topics.entitlements], configuration: EntitlementChangeTopic.consumerConfiguration(client: client, replica: "tests"))
        let listener = EntitlementChangeListener(
            consumer: consumer, hub: harness.app.changes, logger: Logger(service: "stream-tests", minimumLevel: .critical),
            metrics: MetricsRegistry())
        let running = Task { try await listener.run() }
        do {
            try await waitUntil("the stream's consumer is assigned") { listener.isAssigned }
            let warm = "warm-\(UUID().uuidString.prefix(8))"
            let warmToken = try Harness.token(sub: warm, email: nil)
            try await waitUntil("a change published now reaches the stream") {
                async let seen = harness.request(.get, "/api/entitlements/stream?wait=2", token: warmToken)
                try await Task.sleep(for: .milliseconds(100))
                try await harness.publisher.publish(
                    topic: Topics.entitlements, key: warm, value: event(UUID().uuidString, user: warm))
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
                try await harness.publisher.publish(topic: Topics.entitlements, key: ada, value: first)

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
                try await harness.publisher.publish(topic: Topics.entitlements, key: ada, value: second)
                try await waitUntil("the second change is in memory") {
                    try await harness.request(.get, "/api/entitlements/stream?wait=1&after=evt-\(ada)-1", token: adaToken).text
                        .contains("evt-\(ada)-2")
                }
                let unknown = try await harness.request(.get, "/api/entitlements/stream?after=evt-never", token: adaToken)
                #expect(unknown.text == #"{"success":true,"events":[],"cursor":null,"reset":true}"#)
            }
        }
    }
}
