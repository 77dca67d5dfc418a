@testable import SeedModels
import Foundation
import HTTPClient
import Testing

/// Money back and a hostile second account, through the gateway with real
/// processes (sandbox, broker, PostgreSQL): the sandbox sends the providers'
/// documented refund, dispute and trial webhooks, signed.
@Suite(.serialized, .liveStack()) struct MoneyBackEndToEndTests {
    var stack: LiveStack { get throws { try LiveStack.required() } }

    /// The first entitlement once `probe` accepts it.
    static func entitlement(
        _ flow: PurchaseFlow, _ what: String, _ probe: @escaping ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        try await flow.stack.eventually(timeout: .seconds(30), what) {
            try await flow.entitlements().first.flatMap { probe($0) ? $0 : nil }
        }
    }

    /// The Paystack reference of the flow's last successful charge, from the sandbox's delivery log.
    static func lastChargeReference(_ flow: PurchaseFlow) async throws -> String {
        let response = try await flow.stack.request(.get, flow.stack.sandbox + "/_sandbox/deliveries?provider=paystack&event=charge.success")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let deliveries = try #require(object["deliveries"] as? [[String: Any]])
        let references = deliveries.compactMap { delivery -> String? in
            guard let body = delivery["body"] as? String, body.contains(flow.email),
                let parsed = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
                let data = parsed["data"] as? [String: Any]
            else { return nil }
            return data["reference"] as? String
        }
        return try #require(references.last, "no charge.success for \(flow.email)")
    }

    /// A partial refund keeps access (`ENTITLEMENT_PARTIAL_REFUND` defaults
    /// to `keep`); the rest of the money back ends it. Paystack names each
    /// refund's own amount, Lemon Squeezy and Stripe the running total: all
    /// add up. A Stripe refund names only the PaymentIntent; the reconciler's
    /// fetch of the paid invoice links it to the subscription.
    @Test(arguments: ["lemonsqueezy", "paystack", "stripe"])
    func partialRefundsKeepAccessUntilEverythingWentBack(provider: String) async throws {
        let flow = try await PurchaseFlow.make(try stack, provider: provider)
        let code = try #require(try await flow.buySubscription().subscriptionCode)
        try await flow.sandbox("refund", subscription: code, json: #"{"amount": 100}"#)
        // The partial refund is projected once the projector has caught up
        // with it; a full refund after it proves both were read.
        #expect(try await flow.activeEntitlements().count == 1, "a partial refund keeps access")
        try await flow.sandbox("refund", subscription: code)
        let revoked = try await Self.entitlement(flow, "everything refunded") { $0["is_active"] as? Bool == false }
        #expect(revoked["refunded_at"] is String)
    }

    /// A Paystack chargeback: flagged while open, access kept; resolved
    /// `merchant-accepted` (the buyer got the money back) ends access;
    /// resolved `declined` clears the flag.
    @Test(arguments: [("merchant-accepted", false), ("declined", true)])
    func aPaystackChargebackFlagsThenRevokesOrRestores(resolution: String, staysActive: Bool) async throws {
        let flow = try await PurchaseFlow.make(try stack, provider: "paystack")
        _ = try await flow.buySubscription()
        let reference = try await Self.lastChargeReference(flow)
        try await Self.dispute(
            flow, at: "/_sandbox/paystack/transactions/\(reference)/dispute", opening: #"{"action":"create"}"#,
            closing: #"{"action":"resolve","resolution":"\#(resolution)"}"#, staysActive: staysActive)
    }

    /// Opens a dispute through the sandbox control at `path` (access kept,
    /// flagged), then closes it; access stays exactly when `staysActive`.
    static func dispute(_ flow: PurchaseFlow, at path: String, opening: String, closing: String, staysActive: Bool) async throws {
        func post(_ body: String) async throws {
            let response = try await flow.stack.request(.post, flow.stack.sandbox + path, json: body)
            #expect(response.status == 200, "dispute answered \(response.status): \(response.bodyString)")
            _ = try await flow.stack.request(.post, flow.stack.sandbox + "/_sandbox/deliveries/settle")
        }
        try await post(opening)
        let open = try await entitlement(flow, "dispute flagged") { $0["dispute_detected_at"] is String }
        #expect(open["is_active"] as? Bool == true, "an open dispute keeps access")
        try await post(closing)
        let closed = try await entitlement(flow, "dispute closed") { $0["dispute_detected_at"] is NSNull }
        #expect(closed["is_active"] as? Bool == staysActive)
    }

    /// The PaymentIntent that paid a Stripe subscription's latest invoice, as
    /// Stripe's API tells it (the invoice's expanded payments).
    static func stripePaymentIntent(_ flow: PurchaseFlow, subscription: String) async throws -> String {
        let auth = [("Authorization", "Bearer sk_test_sandbox_stripe")]
        let api = flow.stack.sandbox + "/stripe/v1"
        let subscriptionBody = try await flow.stack.request(.get, api + "/subscriptions/\(subscription)", headers: auth)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(subscriptionBody.body)) as? [String: Any])
        let invoice = try #require(object["latest_invoice"] as? String, "the subscription names its latest invoice")
        let invoiceBody = try await flow.stack.request(.get, api + "/invoices/\(invoice)?expand[]=payments", headers: auth)
        let invoiceObject = try #require(try JSONSerialization.jsonObject(with: Data(invoiceBody.body)) as? [String: Any])
        let payments = try #require((invoiceObject["payments"] as? [String: Any])?["data"] as? [[String: Any]])
        return try #require((payments.first?["payment"] as? [String: Any])?["payment_intent"] as? String)
    }

    /// A Stripe dispute of a subscription's payment (it names only the
    /// PaymentIntent): flagged while open, access kept; closed `lost` (the
    /// buyer got the money back) ends access; closed `won` clears the flag.
    @Test(arguments: [("lost", false), ("won", true)])
    func aStripeDisputeFlagsThenRevokesOrRestores(outcome: String, staysActive: Bool) async throws {
        let flow = try await PurchaseFlow.make(try stack, provider: "stripe")
        let code = try #require(try await flow.buySubscription().subscriptionCode)
        let paymentIntent = try await Self.stripePaymentIntent(flow, subscription: code)
        try await Self.dispute(
            flow, at: "/_sandbox/stripe/payments/\(paymentIntent)/dispute", opening: #"{"action":"create"}"#,
            closing: #"{"action":"close","status":"\#(outcome)"}"#, staysActive: staysActive)
    }

    /// A Lemon Squeezy free trial grants at once, as a trial period.
    @Test func aLemonSqueezyTrialGrantsAsATrial() async throws {
        let flow = try await PurchaseFlow.make(try stack, provider: "lemonsqueezy")
        let product = try await flow.subscriptionProduct()
        let url = try await flow.createCheckout(productID: product.productID, variantID: product.variantID)
        let checkoutID = try #require(url.split(separator: "?")[0].split(separator: "/").last.map(String.init))
        let paid = try await flow.stack.request(
            .post, flow.stack.sandbox + "/_sandbox/checkouts/lemonsqueezy/\(checkoutID)/pay", json: #"{"trial_days": 7}"#)
        #expect(paid.status == 200, "pay answered \(paid.status): \(paid.bodyString)")
        _ = try await flow.stack.request(.post, flow.stack.sandbox + "/_sandbox/deliveries/settle")
        // The trial's $0 first order arrives first and briefly reads as a purchase of its own
        // until `subscription_created` names it; wait for the subscription.
        let trial = try await Self.entitlement(flow, "the trial") { $0["is_active"] as? Bool == true && $0["source"] as? String == "subscription" }
        #expect(trial["period_type"] as? String == "trial")
        #expect(trial["expires_at"] is String)
    }

    /// Two app users on one Paystack customer (the attacker's token has no
    /// email claim, so it checked out with the victim's email), each with a
    /// subscription to the same plan: the attacker's failed renewal stays
    /// failed when the victim renews, and the victim's refund is the
    /// victim's alone.
    @Test func oneUsersRenewalNeverRevivesAnotherUsersSubscriptionOnASharedCustomer() async throws {
        let stack = try self.stack
        let victim = try await PurchaseFlow.make(stack, provider: "paystack")
        let victimCode = try #require(try await victim.buySubscription().subscriptionCode)
        let attacker = try await PurchaseFlow.make(stack, provider: "paystack", email: victim.email, tokenHasEmail: false)
        let product = try await attacker.subscriptionProduct()
        try await attacker.pay(checkoutURL: try await attacker.createCheckout(productID: product.productID, variantID: product.variantID))
        let (bought, _) = try await attacker.waitUntil("the attacker's own purchase") { seed, _ in seed.active }
        let attackerCode = try #require(bought.subscriptionCode)
        #expect(attackerCode != victimCode)

        try await attacker.sandbox("payment_failed", subscription: attackerCode)
        _ = try await attacker.waitUntil("attention") { _, raw in raw["status"] as? String == "attention" }
        try await victim.sandbox("renew", subscription: victimCode)
        // The victim's renewal reaches the victim's row (the latest purchase moves)…
        _ = try await victim.waitUntil("the victim renewed") { seed, raw in seed.active && raw["status"] as? String == "active" }
        let victimEntitlement = try await Self.entitlement(victim, "victim renewed") { $0["is_active"] as? Bool == true }
        #expect(victimEntitlement["latest_purchase_at"] is String)
        // …and never the attacker's.
        let (attackerAfter, attackerRaw) = try await attacker.status()
        #expect(
            attackerRaw["status"] as? String == "attention" && !attackerAfter.active, "the victim's renewal must not clear the attacker's failure")

        try await victim.sandbox("refund", subscription: victimCode)
        _ = try await Self.entitlement(victim, "the victim's refund") { $0["is_active"] as? Bool == false }
        let attackerEntitlements = try await attacker.entitlements()
        #expect(attackerEntitlements.allSatisfy { $0["refunded_at"] is NSNull }, "the victim's refund is not the attacker's")
    }
}
