import BillingModel
import Foundation
import Webhooks
import TestSupport
import Testing

/// Objects the reconciler fetches, read as events: the API answers with the
/// same objects the events carry, so the fixtures' `data.object` stand in.
@Suite("Stripe fetched objects")
struct FetchedObjectTests {
    static let provider = WebhookNormalizationTests.provider
    static let fetchedAt = Date(timeIntervalSince1970: 1_750_000_000)

    /// The `data.object` of a fixture event, as the API would answer it.
    func object(_ name: String) throws -> [UInt8] {
        let event = try JSONSerialization.jsonObject(with: Data(try Fixture.bytes("stripe.webhook.\(name).synthetic.json"))) as? [String: Any]
        let object = try #require((event?["data"] as? [String: Any])?["object"])
        return Array(try JSONSerialization.data(withJSONObject: object))
    }

    func read(_ body: [UInt8], name: String = "storefront.snapshot.subscription") throws -> BillingEvent {
        try StripeFetchedObject.normalize(body, name: name, provider: Self.provider, fetchedAt: Self.fetchedAt)
    }

    @Test func aSubscriptionIsObservedAtTheFetch() throws {
        let event = try read(try object("customer_subscription_updated.cancel_at_period_end"))
        #expect(event.kind == .subscriptionObserved)
        #expect(event.orderingTimestamp == Self.fetchedAt)
        #expect(event.subscriptionID == EventParsingTests.subscription && event.entityKey == "stripe:\(EventParsingTests.subscription)")
        #expect(event.status == "active" && event.cancelled == true && event.renewsAt == nil)
        #expect(event.appUserID == EventParsingTests.user && event.customData["storefront_proof"] != nil)
        #expect(event.testMode == true && event.providerEventName == "storefront.snapshot.subscription")
    }

    @Test func aCompletedSessionIsItsPurchase() throws {
        let payment = try read(try object("checkout_session_completed.payment"), name: "storefront.snapshot.session")
        #expect(payment.kind == .orderCreated && payment.orderID == EventParsingTests.payment && payment.amount == 4999)
        #expect(payment.entityKey == "stripe:\(EventParsingTests.payment)" && payment.appUserID == EventParsingTests.user)
        let subscription = try read(try object("checkout_session_completed.subscription"), name: "storefront.snapshot.session")
        #expect(subscription.kind == .subscriptionCreated && subscription.subscriptionID == EventParsingTests.subscription)
        let open = #"{"id":"cs_1","object":"checkout.session","mode":"payment","status":"open","payment_status":"unpaid","livemode":false}"#
        #expect(try read(Array(open.utf8), name: "storefront.snapshot.session").kind == .unknown("storefront.snapshot.session.open"))
    }

    @Test func aSucceededPaymentIntentIsAnOrderWithItsClaim() throws {
        let succeeded = #"""
            {"id":"pi_9","object":"payment_intent","status":"succeeded","amount":999,"amount_received":999,"currency":"usd",
            "created":1749999000,"customer":null,"latest_charge":"ch_9","livemode":false,
            "metadata":{"storefront_user_id":"user-1","storefront_checkout_id":"chk-1","storefront_proof":"p"}}
            """#
        let event = try read(Array(succeeded.utf8), name: "storefront.snapshot.payment")
        #expect(event.kind == .orderCreated && event.orderID == "pi_9" && event.transactionReference == "pi_9")
        #expect(event.amount == 999 && event.currency == "USD" && event.paidAt == Date(timeIntervalSince1970: 1_749_999_000))
        #expect(event.appUserID == "user-1" && event.checkoutID == "chk-1" && event.customData["storefront_proof"] == "p")
        #expect(event.entityKey == "stripe:pi_9")
        let failed = succeeded.replacingOccurrences(of: #""status":"succeeded""#, with: #""status":"requires_payment_method""#)
        #expect(try read(Array(failed.utf8), name: "x").kind == .unknown("x.requires_payment_method"))
    }

    @Test func otherObjectsAndBrokenBodiesAreNotPurchases() throws {
        #expect(try read(Array(#"{"id":"cus_1","object":"customer"}"#.utf8), name: "x").kind == .unknown("x.customer"))
        #expect(throws: StripeEventError.notJSON) { try read(Array("nope".utf8)) }
        #expect(throws: StripeEventError.missingField("object")) { try read(Array(#"{"id":"x"}"#.utf8)) }
        #expect(throws: StripeEventError.self) { try read(Array(#"{"object":"subscription","id":"sub_1"}"#.utf8)) }
    }
}
