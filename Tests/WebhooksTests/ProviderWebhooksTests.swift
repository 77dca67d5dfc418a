import Foundation
import Testing
import TestSupport
import BillingModel
import Webhooks

@Suite struct ProviderWebhooksTests {
    @Test func envelopeCarriesTheBodyByteForByteThroughATopicRecord() throws {
        let body = try Fixture.bytes("lemonsqueezy.webhook.order_created.with_custom_data.json")
        let received = Date(timeIntervalSince1970: 1_700_000_000.25)
        let envelope = ProviderWebhooks.envelope(.lemonsqueezy, body: body, receivedAt: received, sha256Hex: fakeSHA256Hex)
        #expect(envelope.eventName == "order_created")
        #expect(envelope.id == "lemonsqueezy:sha256:\(fakeSHA256Hex(body))")

        let decoded = try RecordCoding.decode(WebhookEnvelope.self, from: RecordCoding.encode(envelope))
        #expect(decoded.payload.bytes == body)
        #expect(decoded.receivedAt == received)
        #expect(decoded == envelope)
        #expect(try ProviderWebhooks.normalize(decoded) == LemonSqueezyWebhook.normalize(body: body))
    }

    @Test func unreadableBodiesStillGetAKeyAndAnEnvelope() {
        let body = Array("<html>".utf8)
        #expect(ProviderWebhooks.topicKey(.paystack, body: body) == "paystack:unparsed")
        let envelope = ProviderWebhooks.envelope(.paystack, body: body, receivedAt: Date(), sha256Hex: fakeSHA256Hex)
        #expect(envelope.eventName == "")
        #expect(envelope.payload.bytes == body)
        #expect(throws: WebhookPayloadError.self) { try ProviderWebhooks.normalize(envelope) }
    }

    @Test func eventsOfOnePaystackSubscriptionShareAKey() throws {
        let keys = try [
            "paystack.webhook.subscription.create.json", "paystack.webhook.subscription.disable.json",
            "paystack.webhook.invoice.update.json",
        ].map { ProviderWebhooks.topicKey(.paystack, body: try Fixture.bytes($0)) }
        #expect(Set(keys) == ["paystack:CUS_xnxdt6s1zg1f4nx"])
    }

    @Test func billingEventRoundTripsThroughJSON() throws {
        let event = try PaystackWebhook.normalize(body: Fixture.bytes("paystack.webhook.invoice.payment_failed.json"))
        #expect(try RecordCoding.decode(BillingEvent.self, from: RecordCoding.encode(event)) == event)
        let unknown = try LemonSqueezyWebhook.normalize(body: Fixture.bytes("lemonsqueezy.webhook.customer_updated.synthetic.json"))
        let back = try RecordCoding.decode(BillingEvent.self, from: RecordCoding.encode(unknown))
        #expect(back.kind == .unknown("customer_updated"))
    }
}
