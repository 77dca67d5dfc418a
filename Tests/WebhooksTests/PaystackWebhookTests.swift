import Foundation
import Testing
import TestSupport
import BillingModel
import JSONCodec
@testable import Webhooks

@Suite struct PaystackWebhookTests {
    @Test func oneTimeChargeIsAnOrder() throws {
        let event = try PaystackWebhook.normalize(body: Fixture.bytes("paystack.webhook.charge.success.json"))
        #expect(event.kind == .orderCreated)
        #expect(event.provider == .paystack)
        #expect(event.providerEventName == "charge.success")
        #expect(event.orderID == "302961")
        #expect(event.transactionReference == "qTPrJoy9Bx")
        #expect(event.status == "success")
        #expect(event.amount == 10000)
        #expect(event.currency == "NGN")
        #expect(event.paidAt == date("2016-09-30T21:10:19Z"))
        #expect(event.createdAt == date("2016-09-30T21:09:56Z"))
        #expect(event.orderingTimestamp == event.paidAt)
        #expect(event.customerID == "CUS_qo38as2hpsgk2r0")
        #expect(event.customerEmail == "bojack@horseman.com")
        #expect(event.cardBrand == "mastercard")
        #expect(event.cardLastFour == "8877")
        #expect(event.productID == nil && event.planName == nil)
        #expect(event.testMode == false)
        #expect(event.customData.isEmpty) // "metadata": 0
        #expect(event.entityKey == "paystack:CUS_qo38as2hpsgk2r0")
    }

    @Test func renewalChargeIsAPaymentOnThePlan() throws {
        let event = try PaystackWebhook.normalize(body: Fixture.bytes("paystack.webhook.charge.success.subscription_renewal.json"))
        #expect(event.kind == .paymentSucceeded)
        #expect(event.productID == "PLN_a5vr5skxg72f4lr")
        #expect(event.variantID == "PLN_a5vr5skxg72f4lr")
        #expect(event.planName == "10% off first month")
        #expect(event.amount == 110000)
        #expect(event.currency == "NGN")
        #expect(event.cardBrand == "visa")
        #expect(event.cardLastFour == "4081")
        #expect(event.testMode == true)
        #expect(event.customData == ["invoice_action": "create"])
        #expect(event.entityKey == "paystack:CUS_mfkew13owtwcmb2")
    }

    @Test func subscriptionCreated() throws {
        let event = try PaystackWebhook.normalize(body: Fixture.bytes("paystack.webhook.subscription.create.json"))
        #expect(event.kind == .subscriptionCreated)
        #expect(event.subscriptionID == "SUB_vsyqdmlzble3uii")
        #expect(event.status == "active")
        #expect(event.amount == 50000)
        #expect(event.currency == "NGN")
        #expect(event.productID == "PLN_gx2wn530m0i3w3m")
        #expect(event.planName == "Monthly retainer")
        #expect(event.recurringPrice == RecurringPrice(amount: 50000, currency: "NGN", interval: BillingInterval(unit: .month)))
        #expect(event.nextPaymentDate == date("2016-05-19T07:00:00Z"))
        #expect(event.renewsAt == event.nextPaymentDate)
        #expect(event.emailToken == nil) // absent from subscription.create
        #expect(event.customerID == "CUS_xnxdt6s1zg1f4nx")
        #expect(event.customerEmail == "bojack@horsinaround.com")
        #expect(event.cardBrand == "mastercard")
        #expect(event.cardLastFour == "7357")
        #expect(event.createdAt == date("2016-10-01T10:59:59Z"))
        #expect(event.entityKey == "paystack:CUS_xnxdt6s1zg1f4nx")
        #expect(event.authorizationCode == "AUTH_96xphygz", "the link to the charge that created it")
    }

    /// `subscription.*` and `invoice.*` carry the subscription's creation
    /// time, not the change's: they are ordered by receipt; charges keep `paid_at`.
    @Test func stateChangesAreOrderedByReceiptChargesByPaidAt() throws {
        let received = try #require(date("2026-12-01T09:00:00Z"))
        func normalized(_ fixture: String) throws -> BillingEvent {
            try ProviderWebhooks.normalize(
                WebhookEnvelope(
                    id: "x", provider: .paystack, eventName: "", receivedAt: received,
                    payload: Fixture.bytes(fixture)))
        }
        #expect(try normalized("paystack.webhook.subscription.not_renew.json").orderingTimestamp == received)
        #expect(try normalized("paystack.webhook.invoice.payment_failed.json").orderingTimestamp == received)
        let charge = try normalized("paystack.webhook.charge.success.json")
        #expect(charge.orderingTimestamp == date("2016-09-30T21:10:19Z") && charge.authorizationCode == "AUTH_f5rnfq9p")
    }

    @Test func invoiceUpdateIsTheSubscriptionUpdate() throws {
        let event = try PaystackWebhook.normalize(body: Fixture.bytes("paystack.webhook.invoice.update.json"))
        #expect(event.kind == .invoiceUpdated)
        #expect(event.invoiceID == "INV_kmhuaaur5c9ruh2")
        #expect(event.subscriptionID == "SUB_l07i1s6s39nmytr")
        #expect(event.status == "success")
        #expect(event.amount == 50000)
        #expect(event.currency == "NGN")
        #expect(event.paidAt == date("2016-04-19T06:00:09Z"))
        #expect(event.nextPaymentDate == date("2016-05-19T07:00:00Z"))
        #expect(event.transactionReference == "rdtmivs7zf")
        #expect(event.customerID == "CUS_xnxdt6s1zg1f4nx")
    }

    @Test func notRenewIsTheCancellation() throws {
        let event = try PaystackWebhook.normalize(body: Fixture.bytes("paystack.webhook.subscription.not_renew.json"))
        #expect(event.kind == .subscriptionNotRenewing)
        #expect(event.subscriptionID == "SUB_d638sdiWAio7jnl")
        #expect(event.status == "non-renewing")
        #expect(event.emailToken == "086x99rmqc4qhcw")
        #expect(event.nextPaymentDate == nil)
        #expect(event.planName == "(1,200) - annually - [1 - Year]")
        #expect(event.customerEmail == "sub@notrenew.com")
    }

    @Test func disableIsTheExpiry() throws {
        let event = try PaystackWebhook.normalize(body: Fixture.bytes("paystack.webhook.subscription.disable.json"))
        #expect(event.kind == .subscriptionDisabled)
        #expect(event.subscriptionID == "SUB_vsyqdmlzble3uii")
        #expect(event.status == "complete")
        #expect(event.emailToken == "ctt824k16n34u69")
        #expect(event.amount == 300000)
        // The plan's price, not the subscription's amount: what MRR counts (docs/revenue.md).
        #expect(event.recurringPrice?.amount == 50000)
        #expect(event.orderingTimestamp == date("2020-11-26T14:45:06Z"))
        #expect(event.entityKey == "paystack:CUS_xnxdt6s1zg1f4nx")
    }

    @Test func paymentFailedFromInvoice() throws {
        let event = try PaystackWebhook.normalize(body: Fixture.bytes("paystack.webhook.invoice.payment_failed.json"))
        #expect(event.kind == .paymentFailed)
        #expect(event.recurringPrice == nil) // an invoice names no plan
        #expect(event.invoiceID == "INV_3kfmqw48ca7b48k")
        #expect(event.subscriptionID == "SUB_f7ct8g01mtcjf78")
        #expect(event.emailToken == "gptk4apuohyyjsg")
        #expect(event.status == "pending")
        #expect(event.paidAt == nil)
        #expect(event.transactionReference == nil) // "transaction": {}
        #expect(event.amount == 10000)
        #expect(event.cardBrand == "verve")
        #expect(event.cardLastFour == "6666")
        #expect(event.customerID == "CUS_3p3ylxyf07605kx")
        #expect(event.orderingTimestamp == date("2019-03-25T14:00:03Z"))
    }

    @Test func refundsReadStringAmountsAndKeyByReference() throws {
        let event = try PaystackWebhook.normalize(body: Fixture.bytes("paystack.webhook.refund.processed.json"))
        #expect(event.kind == .refundProcessed)
        #expect(event.refundedAmount == 5000) // sent as the string "5000"
        #expect(event.amount == nil, "a refund's amount is what went back, not what the charge cost")
        #expect(event.transactionReference == "T2154954_412829_3be32076_6lcg3")
        #expect(event.customerEmail == "damilola@email.com")
        #expect(event.entityKey == "paystack:ref_T2154954_412829_3be32076_6lcg3")
        #expect(event.testMode == false)
    }

    @Test func disputeAndExpiringCards() throws {
        let dispute = try PaystackWebhook.normalize(body: Fixture.bytes("paystack.webhook.charge.dispute.create.json"))
        #expect(dispute.kind == .disputeCreated)
        #expect(dispute.transactionReference == "v3mjfgbnc19v97x")
        #expect(dispute.amount == 5800)
        #expect(dispute.status == "awaiting-merchant-feedback")
        #expect(dispute.orderingTimestamp == date("2020-11-24T18:00:02Z"))
        let cards = try PaystackWebhook.normalize(body: Fixture.bytes("paystack.webhook.subscription.expiring_cards.json"))
        #expect(cards.kind == .expiringCards)
        #expect(cards.subscriptionID == "SUB_lejj927x2kxciw1")
        #expect(cards.customerID == "CUS_8v6g420rc16spqw")
        #expect(cards.cardBrand == "visa")
        #expect(cards.planName == "Premium Service (Monthly)")
    }

    @Test(arguments: [
        ("refund.pending", BillingEventKind.refundPending), ("refund.processing", .refundProcessing),
        ("refund.failed", .refundFailed), ("refund.needs-attention", .refundNeedsAttention),
        ("invoice.create", .invoiceCreated), ("charge.dispute.remind", .disputeReminder),
        ("charge.dispute.resolve", .disputeResolved), ("transfer.success", .unknown("transfer.success")),
        ("paymentrequest.success", .unknown("paymentrequest.success")),
    ])
    func eventNamesMapToKinds(name: String, kind: BillingEventKind) throws {
        let body = Array(#"{"event":"\#(name)","data":{"id":1,"domain":"test"}}"#.utf8)
        #expect(try PaystackWebhook.normalize(body: body).kind == kind)
    }

    @Test func metadataMayBeObjectStringOrEmpty() throws {
        func customData(_ metadata: String) throws -> BillingEvent {
            try PaystackWebhook.normalize(body: Array(#"{"event":"charge.success","data":{"id":7,"metadata":\#(metadata)}}"#.utf8))
        }
        let object = try customData(#"{"storefront_user_id":"u1","storefront_checkout_id":"c1","tries":3}"#)
        #expect(object.appUserID == "u1")
        #expect(object.checkoutID == "c1")
        #expect(object.customData["tries"] == "3")
        let string = try customData(#""{\"storefront_user_id\":\"u2\"}""#)
        #expect(string.appUserID == "u2")
        let fields = try customData(#"{"custom_fields":[{"display_name":"User","variable_name":"storefront_user_id","value":"u3"}]}"#)
        #expect(fields.appUserID == "u3")
        // Other integrations' keys name their own users, never ours.
        let foreign = try customData(#"{"app_user_id":"u4","user_id":"u5","custom_fields":[{"variable_name":"app_user_id","value":"u6"}]}"#)
        #expect(foreign.appUserID == nil && foreign.customData["app_user_id"] == "u4" && foreign.customData["user_id"] == "u5")
        for empty in [#""""#, "0", "null", "[]", #""not json""#] {
            let event = try customData(empty)
            #expect(event.customData.isEmpty, "metadata \(empty)")
            #expect(event.appUserID == nil)
        }
    }

    @Test func malformedBodiesThrow() {
        #expect(throws: WebhookPayloadError.self) { try PaystackWebhook.normalize(body: Array("{\"event\":\"charge.success\",".utf8)) }
        #expect(throws: WebhookPayloadError.missingField("event")) { try PaystackWebhook.normalize(body: Array(#"{"data":{}}"#.utf8)) }
        #expect(throws: WebhookPayloadError.unexpectedShape("data is not an object")) {
            try PaystackWebhook.normalize(body: Array(#"{"event":"charge.success","data":"x"}"#.utf8))
        }
    }

    @Test func dedupKeyUsesTransactionIDOnlyForCharges() throws {
        let charge = try Fixture.bytes("paystack.webhook.charge.success.json")
        #expect(PaystackWebhook.dedupKey(root: try? JSONValue.parse(charge), body: charge) == "paystack:charge.success:302961")
        let notRenew = try Fixture.bytes("paystack.webhook.subscription.not_renew.json")
        #expect(PaystackWebhook.dedupKey(root: try? JSONValue.parse(notRenew), body: notRenew) == "paystack:sha256:\(sha256Hex(notRenew))")
    }

    @Test func everyFixtureNormalizesWithAKnownKind() throws {
        let names = try Fixture.names(withPrefix: "paystack.webhook.")
        #expect(names.count == 15)
        for name in names {
            let event = try PaystackWebhook.normalize(body: Fixture.bytes(name))
            #expect(!event.kind.isUnknown, "\(name)")
            #expect(event.entityKey.hasPrefix("paystack:") && event.entityKey != "paystack:unknown", "\(name)")
        }
    }
}
