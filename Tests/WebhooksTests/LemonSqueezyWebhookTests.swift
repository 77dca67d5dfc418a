import Foundation
import Testing
import TestSupport
import BillingModel
import JSONCodec
@testable import Webhooks

@Suite struct LemonSqueezyWebhookTests {
    @Test func orderCreatedMapsEveryField() throws {
        let event = try LemonSqueezyWebhook.normalize(body: Fixture.bytes("lemonsqueezy.webhook.order_created.with_custom_data.json"))
        #expect(event.kind == .orderCreated)
        #expect(event.provider == .lemonsqueezy)
        #expect(event.providerEventName == "order_created")
        #expect(event.orderID == "1")
        #expect(event.customerID == "1")
        #expect(event.customerEmail == "dan@lemonsqueezy.com")
        #expect(event.transactionReference == "89b36d62-4f5c-4353-853f-0c769d0535c8")
        #expect(event.productID == "1")
        #expect(event.variantID == "1")
        #expect(event.planName == "Product One")
        #expect(event.status == "paid")
        #expect(event.amount == 1859)
        #expect(event.currency == "EUR")
        #expect(event.createdAt == date("2023-01-17T12:26:23Z"))
        #expect(event.orderingTimestamp == date("2023-01-17T12:26:23Z"))
        #expect(event.testMode == false)
        #expect(event.subscriptionID == nil)
        // custom data here is {"customer_id": 25}: an int, kept as a string, not an app user id.
        #expect(event.customData == ["customer_id": "25"])
        #expect(event.appUserID == nil)
        #expect(event.entityKey == "lemonsqueezy:order_1")
    }

    @Test func subscriptionCreatedCarriesAppUserAndCheckout() throws {
        let event = try LemonSqueezyWebhook.normalize(body: Fixture.bytes("lemonsqueezy.webhook.subscription_created.synthetic.json"))
        #expect(event.kind == .subscriptionCreated)
        #expect(event.subscriptionID == "880123")
        #expect(event.orderID == "4451290")
        #expect(event.customerID == "6120345")
        #expect(event.productID == "310456")
        #expect(event.variantID == "472301")
        #expect(event.planName == "Storefront Pro")
        #expect(event.status == "active")
        #expect(event.cancelled == false)
        #expect(event.appUserID == "user-7f3a")
        #expect(event.checkoutID == "2d9c6a40-5b1e-4f7a-9c3d-8e2f1a0b4c6d")
        #expect(event.customerEmail == "ada@example.com")
        #expect(event.renewsAt == date("2025-04-03T09:15:38Z"))
        #expect(event.nextPaymentDate == event.renewsAt)
        #expect(event.endsAt == nil)
        #expect(event.trialEndsAt == nil)
        #expect(event.cardBrand == nil && event.cardLastFour == nil)
        #expect(event.customerPortalURL?.hasPrefix("https://storefront-demo.lemonsqueezy.com/billing?") == true)
        #expect(event.updatePaymentMethodURL?.contains("/subscription/880123/payment-details") == true)
        #expect(event.orderingTimestamp == date("2025-03-03T09:15:41Z"))
        #expect(event.testMode == true)
        #expect(event.entityKey == "lemonsqueezy:sub_880123")
    }

    @Test func subscriptionUpdatedKeepsRawStatusAndCard() throws {
        let event = try LemonSqueezyWebhook.normalize(body: Fixture.bytes("lemonsqueezy.webhook.subscription_updated.synthetic.json"))
        #expect(event.kind == .subscriptionUpdated)
        #expect(event.status == "past_due")
        #expect(event.cardBrand == "mastercard")
        #expect(event.cardLastFour == "5454")
        #expect(event.renewsAt == date("2025-04-06T09:15:38Z"))
        #expect(event.orderingTimestamp == date("2025-04-03T09:20:11Z"))
        #expect(event.entityKey == "lemonsqueezy:sub_880123")
        #expect(event.pauseMode == nil)
    }

    @Test func pausedCarriesItsModeAndResumeDate() throws {
        var text = try String(decoding: Fixture.bytes("lemonsqueezy.webhook.subscription_updated.synthetic.json"), as: UTF8.self)
        text = text.replacingOccurrences(of: #""pause": null"#, with: #""pause": {"mode": "free", "resumes_at": "2025-05-01T00:00:00.000000Z"}"#)
        let event = try LemonSqueezyWebhook.normalize(body: Array(text.utf8))
        #expect(event.pauseMode == "free")
        #expect(event.pauseResumesAt == date("2025-05-01T00:00:00Z"))
    }

    @Test func subscriptionCancelledHasEndsAt() throws {
        let event = try LemonSqueezyWebhook.normalize(body: Fixture.bytes("lemonsqueezy.webhook.subscription_cancelled.synthetic.json"))
        #expect(event.kind == .subscriptionCancelled)
        #expect(event.subscriptionID == "421953")
        #expect(event.status == "cancelled")
        #expect(event.cancelled == true)
        #expect(event.endsAt == date("2024-06-19T14:08:13Z"))
        #expect(event.customerEmail == "test@company.com")
        #expect(event.cardBrand == "visa")
        #expect(event.cardLastFour == "4242")
        #expect(event.variantID == "394420")
        #expect(event.planName == "MelodyMatrix (1 year subscription)")
        #expect(event.orderingTimestamp == date("2024-06-19T14:08:14Z"))
        #expect(event.appUserID == nil)
        #expect(event.customData.isEmpty)
    }

    @Test func subscriptionExpired() throws {
        let event = try LemonSqueezyWebhook.normalize(body: Fixture.bytes("lemonsqueezy.webhook.subscription_expired.synthetic.json"))
        #expect(event.kind == .subscriptionExpired)
        #expect(event.status == "expired")
        #expect(event.subscriptionID == "421953")
        #expect(event.endsAt == date("2024-06-19T14:08:13Z"))
        #expect(event.entityKey == "lemonsqueezy:sub_421953")
    }

    @Test func paymentSuccessIsKeyedBySubscription() throws {
        let event = try LemonSqueezyWebhook.normalize(body: Fixture.bytes("lemonsqueezy.webhook.subscription_payment_success.synthetic.json"))
        #expect(event.kind == .paymentSucceeded)
        #expect(event.invoiceID == "2290871")
        #expect(event.subscriptionID == "880123")
        #expect(event.customerID == "6120345")
        #expect(event.status == "paid")
        #expect(event.amount == 1200)
        #expect(event.currency == "USD")
        #expect(event.paidAt == date("2025-04-03T09:15:44Z"))
        #expect(event.cardLastFour == "5454")
        #expect(event.appUserID == "user-7f3a")
        #expect(event.entityKey == "lemonsqueezy:sub_880123")
    }

    @Test func paymentFailed() throws {
        let event = try LemonSqueezyWebhook.normalize(body: Fixture.bytes("lemonsqueezy.webhook.subscription_payment_failed.synthetic.json"))
        #expect(event.kind == .paymentFailed)
        #expect(event.status == "pending")
        #expect(event.paidAt == nil)
        #expect(event.subscriptionID == "880123")
        #expect(event.amount == 1200)
        #expect(event.orderingTimestamp == date("2025-04-03T09:16:02Z"))
    }

    @Test func unknownEventIsKeptNotRejected() throws {
        let event = try LemonSqueezyWebhook.normalize(body: Fixture.bytes("lemonsqueezy.webhook.customer_updated.synthetic.json"))
        #expect(event.kind == .unknown("customer_updated"))
        #expect(event.providerEventName == "customer_updated")
        #expect(event.entityKey == "lemonsqueezy:customers_6120345")
    }

    @Test(arguments: [
        ("order_refunded", BillingEventKind.orderRefunded), ("subscription_resumed", .subscriptionResumed),
        ("subscription_paused", .subscriptionPaused), ("subscription_unpaused", .subscriptionUnpaused),
        ("subscription_payment_recovered", .paymentRecovered), ("subscription_payment_refunded", .paymentRefunded),
        ("license_key_created", .licenseKeyCreated), ("license_key_updated", .licenseKeyUpdated),
        ("affiliate_activated", .unknown("affiliate_activated")),
    ])
    func everyDocumentedEventNameHasAKind(name: String, kind: BillingEventKind) throws {
        let body = Array(#"{"meta":{"event_name":"\#(name)"},"data":{"type":"x","id":"9","attributes":{}}}"#.utf8)
        #expect(try LemonSqueezyWebhook.normalize(body: body).kind == kind)
    }

    @Test func malformedBodiesThrowTypedErrors() {
        #expect(throws: WebhookPayloadError.self) { try LemonSqueezyWebhook.normalize(body: Array("{\"meta\":".utf8)) }
        #expect(throws: WebhookPayloadError.missingField("meta")) { try LemonSqueezyWebhook.normalize(body: Array("{}".utf8)) }
        #expect(throws: WebhookPayloadError.missingField("meta.event_name")) {
            try LemonSqueezyWebhook.normalize(body: Array(#"{"meta":{"test_mode":true}}"#.utf8))
        }
        #expect(throws: WebhookPayloadError.unexpectedShape("top level is not an object")) {
            try LemonSqueezyWebhook.normalize(body: Array("[1,2]".utf8))
        }
        #expect(throws: WebhookPayloadError.tooLarge(bytes: JSONValue.maximumBodySize + 1)) {
            try LemonSqueezyWebhook.normalize(body: [UInt8](repeating: 0x20, count: JSONValue.maximumBodySize + 1))
        }
    }

    @Test func dedupKeyUsesWebhookIDElseBodyDigest() throws {
        let created = try Fixture.bytes("lemonsqueezy.webhook.subscription_created.synthetic.json")
        #expect(LemonSqueezyWebhook.dedupKey(body: created, sha256Hex: fakeSHA256Hex) == "lemonsqueezy:7c1f3a52-9d0e-4b8a-a3f1-2e5d6c7b8a91")
        // The all-zero id of hand-made payloads and a missing id fall back to the digest.
        let zeroed = try Fixture.bytes("lemonsqueezy.webhook.subscription_cancelled.synthetic.json")
        #expect(LemonSqueezyWebhook.dedupKey(body: zeroed, sha256Hex: fakeSHA256Hex) == "lemonsqueezy:sha256:\(fakeSHA256Hex(zeroed))")
        let order = try Fixture.bytes("lemonsqueezy.webhook.order_created.with_custom_data.json")
        #expect(LemonSqueezyWebhook.dedupKey(body: order, sha256Hex: fakeSHA256Hex) == "lemonsqueezy:sha256:\(fakeSHA256Hex(order))")
        let garbage = Array("not json".utf8)
        #expect(LemonSqueezyWebhook.dedupKey(body: garbage, sha256Hex: fakeSHA256Hex) == "lemonsqueezy:sha256:\(fakeSHA256Hex(garbage))")
    }

    @Test func everyFixtureNormalizes() throws {
        let names = try Fixture.names(withPrefix: "lemonsqueezy.webhook.")
        #expect(names.count >= 8)
        for name in names {
            let event = try LemonSqueezyWebhook.normalize(body: Fixture.bytes(name))
            #expect(event.entityKey.hasPrefix("lemonsqueezy:"), "\(name)")
            #expect(event.orderingTimestamp != nil, "\(name)")
        }
    }
}
