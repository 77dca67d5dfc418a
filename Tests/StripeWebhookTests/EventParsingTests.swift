import BillingModel
import Entitlements
import Foundation
import Webhooks
import TestSupport
import Testing

/// The events Storefront acts on, read from Tests/Fixtures (payloads written
/// for these tests in Stripe's documented shapes; see SOURCES.md).
@Suite("Stripe events")
struct EventParsingTests {
    static let user = "user-7f3a"
    static let checkout = "2d9c6a40-5b1e-4f7a-9c3d-8e2f1a0b4c6d"
    static let subscription = "sub_1QmSc2StorefrontSub"
    static let payment = "pi_3QmSd1StorefrontPay"

    func event(_ name: String) throws -> StripeEvent {
        try StripeEvent.parse(try Fixture.bytes("stripe.webhook.\(name).synthetic.json"))
    }

    func date(_ seconds: TimeInterval) -> Date { Date(timeIntervalSince1970: seconds) }

    @Test func everyStripeFixtureParsesWithAKnownType() throws {
        let names = try Fixture.names(withPrefix: "stripe.webhook.")
        #expect(names.count >= 12)
        var types: Set<StripeEventType> = []
        var ids: Set<String> = []
        for name in names {
            let event = try StripeEvent.parse(try Fixture.bytes(name))
            types.insert(try #require(event.type, "\(name)"))
            ids.insert(event.id)
            #expect(event.mode == .test)
            #expect(!event.orderingKey.isEmpty)
        }
        #expect(ids.count == names.count)
        #expect(types == Set(StripeEventType.allCases).subtracting([.subscriptionResumed]))
    }

    @Test func subscriptionCheckoutNamesItsOwnerAndSubscription() throws {
        let event = try event("checkout_session_completed.subscription")
        #expect(event.id == "evt_1QmSc4StorefrontCsSub")
        #expect(event.type == .checkoutSessionCompleted)
        #expect(event.apiVersion == "2025-03-31.basil")
        #expect(event.created == date(1_740_787_210))
        #expect(event.orderingKey == Self.subscription)
        guard case .checkoutSession(let session) = event.payload else { Issue.record("not a session"); return }
        #expect(session.mode == .subscription)
        #expect(session.isPaid)
        #expect(session.subscriptionID == Self.subscription)
        #expect(session.paymentIntentID == nil)
        #expect(session.customerID == "cus_RfStorefrontAda")
        #expect(session.customerEmail == "ada@example.com")
        #expect(session.amountTotal == 999)
        #expect(session.currency == "USD")
        #expect(session.owner.appUserID == Self.user)
        #expect(session.owner.checkoutID == Self.checkout)
        #expect(session.owner.proof?.count == 64)
        #expect(event.owner == session.owner)
    }

    @Test func paymentCheckoutIsKeyedByItsPayment() throws {
        let event = try event("checkout_session_completed.payment")
        #expect(event.orderingKey == Self.payment)
        guard case .checkoutSession(let session) = event.payload else { Issue.record("not a session"); return }
        #expect(session.mode == .payment)
        #expect(session.paymentIntentID == Self.payment)
        #expect(session.subscriptionID == nil)
        #expect(session.amountTotal == 4999)
    }

    @Test func aTrialThatBecomesActive() throws {
        let created = try event("customer_subscription_created.trialing")
        guard case .subscription(let trial) = created.payload else { Issue.record("not a subscription"); return }
        #expect(created.orderingKey == Self.subscription)
        #expect(trial.status == .trialing)
        #expect(trial.phase == .trialing)
        #expect(trial.trialStart == date(1_740_787_200))
        #expect(trial.trialEnd == date(1_741_996_800))
        #expect(trial.currentPeriodEnd == date(1_741_996_800))
        #expect(trial.priceID == "price_1QmSbxStorefrontMonthly")
        #expect(trial.productID == "prod_RfStorefrontPro")
        #expect(trial.owner.appUserID == Self.user)
        #expect(trial.previousStatus == nil)

        let updated = try event("customer_subscription_updated.trial_ended")
        guard case .subscription(let active) = updated.payload else { Issue.record("not a subscription"); return }
        #expect(updated.type == .subscriptionUpdated)
        #expect(active.status == .active)
        #expect(active.previousStatus == "trialing")
        #expect(active.phase == .renewing)
        #expect(active.currentPeriodStart == date(1_741_996_800))
        #expect(active.currentPeriodEnd == date(1_744_675_200))
    }

    @Test func cancelAtPeriodEndThenDeleted() throws {
        guard case .subscription(let ending) = try event("customer_subscription_updated.cancel_at_period_end").payload,
            case .subscription(let ended) = try event("customer_subscription_deleted").payload
        else {
            Issue.record("not subscriptions")
            return
        }
        #expect(ending.rawStatus == "active")
        #expect(ending.cancelAtPeriodEnd)
        #expect(ending.phase == .nonRenewing)
        #expect(ending.cancelAt == date(1_744_675_200))
        #expect(ending.canceledAt == date(1_742_000_000))
        #expect(ended.status == .canceled)
        #expect(ended.phase == .ended)
        #expect(ended.endedAt == date(1_744_675_200))
    }

    @Test func pausedAfterATrial() throws {
        let event = try event("customer_subscription_paused")
        guard case .subscription(let paused) = event.payload else { Issue.record("not a subscription"); return }
        #expect(event.type == .subscriptionPaused)
        #expect(paused.phase == .paused)
        #expect(paused.previousStatus == "trialing")
    }

    @Test func invoicesNameTheirSubscriptionInEitherAPIVersion() throws {
        let paid = try event("invoice_paid")
        guard case .invoice(let invoice) = paid.payload else { Issue.record("not an invoice"); return }
        #expect(paid.orderingKey == Self.subscription)
        #expect(invoice.subscriptionID == Self.subscription)
        #expect(invoice.status == "paid")
        #expect(invoice.billingReason == "subscription_cycle")
        #expect(!invoice.isFirstPayment)
        #expect(invoice.amountPaid == 999)
        #expect(invoice.periodStart == date(1_741_996_800))
        #expect(invoice.periodEnd == date(1_744_675_200))
        #expect(invoice.owner.appUserID == Self.user)

        let old = try event("invoice_paid.api_2024_06_20")
        guard case .invoice(let legacy) = old.payload else { Issue.record("not an invoice"); return }
        #expect(old.apiVersion == "2024-06-20")
        #expect(legacy.subscriptionID == Self.subscription)
        #expect(legacy.paymentIntentID == "pi_3QmSc3StorefrontFirst")
        #expect(legacy.isFirstPayment)
        #expect(legacy.owner.checkoutID == Self.checkout)
        #expect(old.orderingKey == Self.subscription)
    }

    @Test func aFailedRenewalSaysWhenStripeRetries() throws {
        guard case .invoice(let invoice) = try event("invoice_payment_failed").payload else { Issue.record("not an invoice"); return }
        #expect(invoice.status == "open")
        #expect(invoice.amountPaid == 0)
        #expect(invoice.amountDue == 999)
        #expect(invoice.attemptCount == 1)
        #expect(invoice.nextPaymentAttempt == date(1_742_256_000))
    }

    @Test func aPartialRefundKeepsTheRunningTotal() throws {
        let event = try event("charge_refunded.partial")
        guard case .charge(let charge) = event.payload else { Issue.record("not a charge"); return }
        #expect(event.orderingKey == Self.payment)
        #expect(charge.amount == 4999)
        #expect(charge.amountRefunded == 2000)
        #expect(!charge.refunded)
        #expect(charge.isPartiallyRefunded)
        #expect(charge.refunds == [StripeCharge.Refund(id: "re_3QmSd1StorefrontRefund", amount: 2000, created: date(1_741_000_000))])
        #expect(charge.owner.appUserID == Self.user)
    }

    @Test func aDisputeOpensAndIsLost() throws {
        let opened = try event("charge_dispute_created")
        let closed = try event("charge_dispute_closed.lost")
        guard case .dispute(let open) = opened.payload, case .dispute(let lost) = closed.payload else { Issue.record("not disputes"); return }
        #expect(opened.orderingKey == Self.payment)
        #expect(closed.orderingKey == Self.payment)
        #expect(open.chargeID == "ch_3QmSd1StorefrontCharge")
        #expect(open.amount == 4999)
        #expect(open.status == "needs_response")
        #expect(!open.isLost && !open.isWon)
        #expect(lost.isLost)
        #expect(lost.reason == "fraudulent")
        #expect(opened.owner == nil)
    }

    @Test func anUnhandledTypeIsKeptNotRefused() throws {
        let body =
            #"{"id":"evt_x","object":"event","type":"customer.updated","created":1,"livemode":true,"data":{"object":{"id":"cus_1","object":"customer"}}}"#
        let event = try StripeEvent.parse(Array(body.utf8))
        #expect(event.type == nil)
        #expect(event.rawType == "customer.updated")
        #expect(event.payload == .unhandled(objectType: "customer"))
        #expect(event.orderingKey == "cus_1")
        #expect(event.mode == .live)
    }

    @Test func brokenBodiesAreRefusedWithTheFieldNamed() throws {
        func parse(_ text: String) throws(StripeEventError) -> StripeEvent { try StripeEvent.parse(Array(text.utf8)) }
        #expect(throws: StripeEventError.notJSON) { try parse("{") }
        #expect(throws: StripeEventError.notAnEvent) { try parse(#"{"id":"evt_1","type":"invoice.paid"}"#) }
        #expect(throws: StripeEventError.missingField("id")) {
            try parse(#"{"object":"event","type":"invoice.paid","created":1,"data":{"object":{}}}"#)
        }
        #expect(throws: StripeEventError.missingField("data.object")) {
            try parse(#"{"object":"event","id":"evt_1","type":"invoice.paid","created":1,"data":{}}"#)
        }
        #expect(throws: StripeEventError.unexpectedObject(expected: "invoice", found: "charge")) {
            try parse(#"{"object":"event","id":"evt_1","type":"invoice.paid","created":1,"data":{"object":{"object":"charge","id":"ch_1"}}}"#)
        }
        #expect(throws: StripeEventError.missingField("data.object.status")) {
            try parse(
                #"{"object":"event","id":"evt_1","type":"customer.subscription.updated","created":1,"data":{"object":{"object":"subscription","id":"sub_1"}}}"#
            )
        }
        let longID = String(repeating: "x", count: 300)
        #expect(throws: StripeEventError.missingField("id")) {
            try parse(#"{"object":"event","id":"\#(longID)","type":"invoice.paid","created":1,"data":{"object":{"object":"invoice","id":"in_1"}}}"#)
        }
    }

    /// Metadata is the caller's input: values past Stripe's own limits are not read.
    @Test func oversizedMetadataIsLeftOut() throws {
        let long = String(repeating: "u", count: 501)
        let body = #"""
            {"object":"event","id":"evt_1","type":"charge.refunded","created":1,"data":{"object":{"object":"charge","id":"ch_1","amount":5,
            "metadata":{"storefront_user_id":"\#(long)","storefront_checkout_id":7,"storefront_proof":"p"}}}}
            """#
        let event = try StripeEvent.parse(Array(body.utf8))
        #expect(event.owner?.appUserID == nil)
        #expect(event.owner?.checkoutID == nil)
        #expect(event.owner?.proof == "p")
    }
}
