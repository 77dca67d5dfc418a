import BillingModel
import Foundation
import JSONCodec
@testable import Webhooks
import TestSupport
import Testing

/// Stripe events into ``BillingEvent``s: every written payload in
/// Tests/Fixtures, and every webhook of a purchase's life in the sandbox.
@Suite("Stripe events normalised")
struct WebhookNormalizationTests {
    static let provider = Provider.stripe
    static let user = EventParsingTests.user
    static let checkout = EventParsingTests.checkout
    static let subscription = EventParsingTests.subscription
    static let payment = EventParsingTests.payment

    func normalized(_ name: String) throws -> BillingEvent {
        try StripeWebhook.normalize(body: try Fixture.bytes("stripe.webhook.\(name).synthetic.json"), provider: Self.provider)
    }

    func date(_ seconds: TimeInterval) -> Date { Date(timeIntervalSince1970: seconds) }

    @Test func everyFixtureHasItsKindProviderKeyAndTime() throws {
        let kinds: [String: BillingEventKind] = [
            "checkout_session_completed.payment": .orderCreated,
            "checkout_session_completed.subscription": .subscriptionCreated,
            "customer_subscription_created.trialing": .subscriptionCreated,
            "customer_subscription_updated.trial_ended": .subscriptionUpdated,
            "customer_subscription_updated.cancel_at_period_end": .subscriptionCancelled,
            "customer_subscription_paused": .subscriptionPaused,
            "customer_subscription_deleted": .subscriptionExpired,
            "invoice_paid": .paymentSucceeded,
            "invoice_paid.api_2024_06_20": .paymentSucceeded,
            "invoice_payment_failed": .paymentFailed,
            "charge_refunded.partial": .orderRefunded,
            "charge_dispute_created": .disputeCreated,
            "charge_dispute_closed.lost": .disputeResolved,
        ]
        let names = try Fixture.names(withPrefix: "stripe.webhook.")
        #expect(names.count == kinds.count)
        for name in names {
            let short = String(name.dropFirst("stripe.webhook.".count).dropLast(".synthetic.json".count))
            let body = try Fixture.bytes(name)
            let parsed = try StripeEvent.parse(body)
            let event = try StripeWebhook.normalize(body: body, provider: Self.provider)
            #expect(event.kind == kinds[short], "\(short)")
            #expect(event.provider == Self.provider)
            #expect(event.providerEventName == parsed.rawType)
            #expect(event.entityKey == "stripe:\(parsed.orderingKey)")
            #expect(event.orderingTimestamp == parsed.created)
            #expect(event.testMode == true)
            #expect(StripeWebhook.dedupKey(parsed, provider: Self.provider) == "stripe:\(parsed.id)")
            #expect(try StripeWebhook.normalize(root: try JSONValue.parse(body), provider: Self.provider) == event)
        }
    }

    @Test func aSubscriptionCheckoutClaimsItsSubscriptionWithoutCountingMoney() throws {
        let event = try normalized("checkout_session_completed.subscription")
        #expect(event.subscriptionID == Self.subscription)
        #expect(event.appUserID == Self.user)
        #expect(event.checkoutID == Self.checkout)
        #expect(event.customData[CustomDataKeys.proof]?.count == 64)
        #expect(event.customerID == "cus_RfStorefrontAda")
        #expect(event.customerEmail == "ada@example.com")
        #expect(event.amount == nil, "invoice.paid carries the subscription's money")
        #expect(event.orderID == nil)
        #expect(event.entityKey == "stripe:\(Self.subscription)")
    }

    @Test func aPaymentCheckoutIsAPaidOrder() throws {
        let event = try normalized("checkout_session_completed.payment")
        #expect(event.orderID == Self.payment)
        #expect(event.amount == 4999 && event.currency == "USD")
        #expect(event.status == "paid")
        #expect(event.paidAt == date(1_740_787_310))
        #expect(event.appUserID == Self.user && event.checkoutID == Self.checkout)
        #expect(event.transactionReference == Self.payment, "a payment is referenced by its PaymentIntent")
        #expect(event.subscriptionID == nil)
    }

    @Test func subscriptionsCarryPeriodsTrialAndScheduledEnd() throws {
        let trialing = try normalized("customer_subscription_created.trialing")
        #expect(trialing.status == "trialing")
        #expect(trialing.trialEndsAt == date(1_741_996_800))
        #expect(trialing.renewsAt != nil && trialing.renewsAt == trialing.nextPaymentDate)
        #expect(trialing.cancelled == false && trialing.endsAt == nil)
        #expect(trialing.appUserID == Self.user)
        #expect(trialing.variantID?.hasPrefix("price_") == true && trialing.productID?.hasPrefix("prod_") == true)

        let cancelling = try normalized("customer_subscription_updated.cancel_at_period_end")
        #expect(cancelling.status == "active" && cancelling.cancelled == true)
        #expect(cancelling.endsAt == date(1_744_675_200))
        #expect(cancelling.renewsAt == nil, "a subscription ending at its period's end does not renew")

        let renewed = try normalized("customer_subscription_updated.trial_ended")
        #expect(renewed.status == "active" && renewed.cancelled == false)
        #expect(renewed.renewsAt != nil)

        let ended = try normalized("customer_subscription_deleted")
        #expect(ended.status == "canceled" && ended.renewsAt == nil)
        #expect(ended.endsAt != nil)
    }

    @Test func invoicesCarryMoneyPriceAndNextAttempt() throws {
        let paid = try normalized("invoice_paid")
        #expect(paid.subscriptionID == Self.subscription)
        #expect(paid.amount == 999 && paid.currency == "USD")
        #expect(paid.variantID == "price_1QmSbxStorefrontMonthly")
        #expect(paid.paidAt == date(1_741_996_806))
        #expect(paid.renewsAt != nil)
        #expect(paid.appUserID == Self.user)

        let older = try normalized("invoice_paid.api_2024_06_20")
        #expect(older.subscriptionID == Self.subscription)
        #expect(older.orderID == "pi_3QmSc3StorefrontFirst")

        let failed = try normalized("invoice_payment_failed")
        #expect(failed.kind == .paymentFailed)
        #expect(failed.amount == 999)
        #expect(failed.nextPaymentDate == date(1_742_256_000))
        #expect(failed.paidAt == nil)
    }

    /// A plan change's invoice lists the old price's unused time first (a
    /// negative proration), then the new price: the invoice names the new
    /// price and its period, in both API shapes, and a credit alone names none.
    @Test func aPlanChangesInvoiceNamesTheNewPriceNotTheCreditedOne() throws {
        let fixture = try JSONValue.parse(try Fixture.bytes("stripe.webhook.invoice_paid.synthetic.json"))
        let newLine = try #require(fixture["data", "object", "lines", "data"]?.array?.first)
        func line(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }
        let creditText =
            #"{"amount":-350,"parent":{"subscription_item_details":{"proration":true}},"period":{"start":1741000000,"end":1741996800},"pricing":{"price_details":{"price":"price_old","product":"prod_old"}}}"#
        let credit = try line(creditText)
        let remaining = try line(
            #"{"amount":2000,"proration":true,"period":{"start":1741000000,"end":1741996800},"price":{"id":"price_new_legacy"}}"#)
        let legacyCredit = try line(#"{"amount":-350,"proration":true,"period":{"start":1741000000,"end":1741996800},"price":{"id":"price_old"}}"#)

        let basil = StripeInvoice.planLine([credit, newLine])
        #expect(basil?["pricing", "price_details", "price"]?.string == "price_1QmSbxStorefrontMonthly")
        #expect(StripeInvoice.planLine([legacyCredit, remaining])?["price", "id"]?.string == "price_new_legacy")
        #expect(StripeInvoice.planLine([credit, legacyCredit]) == nil)
        #expect(StripeInvoice.planLine([newLine])?["period", "end"] == newLine["period", "end"])

        // The whole event: the new price, and the period it starts.
        var event = try #require(
            try JSONSerialization.jsonObject(with: Data(try Fixture.bytes("stripe.webhook.invoice_paid.synthetic.json"))) as? [String: Any])
        var data = try #require(event["data"] as? [String: Any])
        var object = try #require(data["object"] as? [String: Any])
        var lines = try #require(object["lines"] as? [String: Any])
        let first = try #require((lines["data"] as? [Any])?.first)
        lines["data"] = [try JSONSerialization.jsonObject(with: Data(creditText.utf8)), first]
        object["lines"] = lines
        data["object"] = object
        event["data"] = data
        let paid = try StripeWebhook.normalize(body: Array(try JSONSerialization.data(withJSONObject: event)), provider: Self.provider)
        #expect(paid.variantID == "price_1QmSbxStorefrontMonthly" && paid.productID == "prod_RfStorefrontPro")
        #expect(paid.renewsAt == date(1_744_675_200))
    }

    @Test func refundsAndDisputesSayWhatWentBack() throws {
        let refund = try normalized("charge_refunded.partial")
        #expect(refund.orderID == Self.payment)
        #expect(refund.amount == 4999 && refund.refundedAmount == 2000)
        #expect(refund.createdAt == date(1_740_787_305), "the refunded payment's own time")
        #expect(refund.status == "partially_refunded")
        #expect(refund.appUserID == Self.user)

        let opened = try normalized("charge_dispute_created")
        #expect(opened.orderID == Self.payment && opened.refundedAmount == nil && opened.disputeResolution == nil)

        let lost = try normalized("charge_dispute_closed.lost")
        #expect(lost.disputeResolution == BillingEvent.disputeReturnedTheMoney, "a lost dispute returned the money")
        #expect(lost.refundedAmount == 4999)
        #expect(lost.entityKey == "stripe:\(Self.payment)")
    }

    @Test func aBodyThatIsNotAnEventIsRefused() {
        #expect(throws: StripeEventError.notAnEvent) {
            try StripeWebhook.normalize(body: Array(#"{"object":"charge","id":"ch_1"}"#.utf8), provider: Self.provider)
        }
        #expect(throws: StripeEventError.notJSON) { try StripeWebhook.normalize(body: Array("nope".utf8), provider: Self.provider) }
    }

    /// Every webhook of the sandbox's purchase life, in order, to its kind:
    /// the cancel and the resume are told apart by `previous_attributes`, the
    /// paid retry is a recovery.
    @Test func aPurchaseLifeInTheSandboxNormalisesToItsKinds() async throws {
        let life = try await SandboxPurchaseLife.run()
        let events = try life.deliveries.map { delivery throws(StripeEventError) in
            try StripeWebhook.normalize(body: delivery.body, provider: Self.provider)
        }
        #expect(
            events.map(\.kind) == [
                .subscriptionCreated, .paymentSucceeded, .subscriptionCreated, .paymentSucceeded, .subscriptionUpdated, .paymentFailed,
                .subscriptionUpdated, .paymentRecovered, .subscriptionUpdated, .subscriptionCancelled, .subscriptionResumed, .orderRefunded,
                .subscriptionExpired,
            ])
        #expect(events.filter { $0.kind != .orderRefunded }.allSatisfy { $0.entityKey == "stripe:\(life.subscriptionID)" })
        // The subscription's own metadata (subscription_data[metadata]) names the user on its events.
        #expect(events.filter { $0.kind == .subscriptionCreated }.allSatisfy { $0.appUserID == "user-1" })
        #expect(events[9].cancelled == true && events[10].cancelled == false)
    }
}
