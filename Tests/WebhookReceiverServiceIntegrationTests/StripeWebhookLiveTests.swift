import Foundation
import HTTPClient
import BillingModel
import ServiceSettings
import TestSupport
import Testing
import Webhooks

/// Stripe's `Stripe-Signature` at the real receiver, publishing to the real
/// broker: signed with either secret of a rotation, it is published under the
/// subscription's key; stale, foreign, missing or unsigned, it is a 401 and
/// nothing is published.
@Suite("Stripe webhooks at the receiver over a real socket")
struct StripeWebhookLiveTests {
    static let current = Secret("whsec_receiver_current_5d1"), previous = Secret("whsec_receiver_previous_a07")

    /// The subscription fixture with a fresh event id (the dedup key).
    static func delivery() throws -> (body: [UInt8], eventID: String) {
        let text = try Fixture.text("stripe.webhook.customer_subscription_created.trialing.synthetic.json")
        let eventID = "evt_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(24))"
        try #require(text.contains("evt_1QmSc5StorefrontSubNew"))
        return (Array(text.replacingOccurrences(of: "evt_1QmSc5StorefrontSubNew", with: eventID).utf8), eventID)
    }

    static func signature(_ body: [UInt8], _ secret: Secret, at time: Date = Date()) -> [(String, String)] {
        [("Stripe-Signature", StripeSignatureVerifier.header(timestamp: Int64(time.timeIntervalSince1970), body: body, secrets: [secret]))]
    }

    @Test func signedDeliveriesArePublishedAndForgedOnesRefused() async throws {
        let brokers = try testBrokers()
        let watcher = try await TopicWatcher(brokers: brokers)
        let receiver = try await LiveReceiver.start(
            verifiers: [StripeWebhookVerifier(secrets: [Self.current, Self.previous])], brokers: brokers)

        let refused = try Self.delivery()
        let attempts: [[(String, String)]] = [
            [],
            Self.signature(refused.body, Secret("whsec_someone_else")),
            Self.signature(refused.body, Self.current, at: Date().addingTimeInterval(-3_600)),
            [("Stripe-Signature", "t=\(Int64(Date().timeIntervalSince1970)),v0=abc")],
        ]
        for headers in attempts {
            let response = try await receiver.post(.stripe, body: refused.body, headers: headers)
            #expect(response.status == 401, "\(headers.map(\.1))")
        }

        for secret in [Self.current, Self.previous] {
            let (body, eventID) = try Self.delivery()
            let response = try await receiver.post(.stripe, body: body, headers: Self.signature(body, secret))
            #expect(response.status == 200, "answered \(response.status): \(response.bodyString)")
            let record = try #require(await watcher.find(id: "stripe:\(eventID)"), "the Stripe envelope is on the topic")
            #expect(record.key == "stripe:sub_1QmSc2StorefrontSub", "keyed by the subscription, so its events stay in order")
            #expect(record.envelope.eventName == "customer.subscription.created" && record.envelope.payload.bytes == body)
        }
        #expect(watcher.records(id: "stripe:\(refused.eventID)").isEmpty, "no refused delivery was published")

        await watcher.close()
        try await receiver.stop()
    }
}
