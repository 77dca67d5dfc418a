@testable import SeedModels
import Foundation
import HTTPClient
import Testing

/// "What may this user use right now?", through the gateway with real
/// processes (sandbox, broker, PostgreSQL): each case the entitlements issue
/// found wrong, as a user would meet it.
@Suite(.serialized, .liveStack()) struct EntitlementsEndToEndTests {
    var stack: LiveStack { get throws { try LiveStack.required() } }

    /// A monthly plan's first `order_created` is part of the subscription:
    /// once the subscription expires, nothing is left (no lifetime access).
    @Test func anExpiredLemonSqueezySubscriptionLeavesNoLifetimeAccess() async throws {
        let flow = try await PurchaseFlow.make(try stack, provider: "lemonsqueezy")
        let bought = try await flow.buySubscription()
        let code = try #require(bought.subscriptionCode)
        let active = try await flow.activeEntitlements()
        #expect(active.count == 1, "one subscription, one entitlement: \(active)")

        try await flow.sandbox("expire", subscription: code)
        _ = try await flow.waitUntil("the expiry projected") { seed, raw in !seed.active && raw["status"] as? String == "expired" }
        #expect(try await flow.activeEntitlements().isEmpty, "the subscription's first order must not grant lifetime access")
        let listed = try await flow.entitlements()
        #expect(listed.count == 1 && listed.first?["source"] as? String == "subscription" && listed.first?["is_active"] as? Bool == false)
    }

    /// A refund of the subscription's payment (Lemon Squeezy
    /// `subscription_payment_refunded`; Paystack `refund.processed`, which
    /// names only the transaction) ends access at once, with `refunded_at`.
    @Test(arguments: ["lemonsqueezy", "paystack", "stripe"])
    func aRefundedSubscriptionPaymentEndsAccess(provider: String) async throws {
        let flow = try await PurchaseFlow.make(try stack, provider: provider)
        let bought = try await flow.buySubscription()
        let code = try #require(bought.subscriptionCode)
        #expect(try await flow.activeEntitlements().count == 1)
        try await flow.sandbox("refund", subscription: code)
        let refunded = try await flow.stack.eventually(timeout: .seconds(30), "the refund projected") {
            let listed = try await flow.entitlements()
            return listed.first.flatMap { $0["is_active"] as? Bool == false ? $0 : nil }
        }
        #expect(refunded["refunded_at"] is String, "refunded_at names when the money went back: \(refunded)")
    }

    /// Paystack's `/subscription/enable` sends no webhook; the status still
    /// shows the resumed, renewing subscription.
    @Test func aPaystackResumeIsActiveAndRenewingWithoutAWebhook() async throws {
        let flow = try await PurchaseFlow.make(try stack, provider: "paystack")
        let bought = try await flow.buySubscription()
        let code = try #require(bought.subscriptionCode)
        let cancelled = try await flow.cancel(code: code, emailToken: bought.emailToken)
        #expect(cancelled.status == 200, "cancel answered \(cancelled.status): \(cancelled.bodyString)")
        _ = try await flow.waitUntil("non-renewing") { _, raw in raw["status"] as? String == "non-renewing" }

        let resumed = try await flow.resume(code: code)
        #expect(resumed.status == 200, "resume answered \(resumed.status): \(resumed.bodyString)")
        let (seed, raw) = try await flow.waitUntil("active and renewing again") { _, raw in
            raw["status"] as? String == "active" && raw["cancel_at_period_end"] as? Bool == false
        }
        #expect(seed.active && seed.nextBillingDate != nil && raw["ends_at"] is NSNull)
        let entitlement = try #require(try await flow.entitlements().first)
        #expect(entitlement["is_active"] as? Bool == true && entitlement["will_renew"] as? Bool == true)
        #expect(entitlement["unsubscribe_detected_at"] is NSNull)
    }

    /// `pause.mode` `free` means the service continues; `void` means it does not.
    @Test func aLemonSqueezyPauseGrantsAccordingToItsMode() async throws {
        let flow = try await PurchaseFlow.make(try stack, provider: "lemonsqueezy")
        let code = try #require(try await flow.buySubscription().subscriptionCode)

        try await flow.sandbox("pause", subscription: code, json: #"{"mode":"free"}"#)
        let (free, _) = try await flow.waitUntil("paused (free)") { _, raw in raw["status"] as? String == "paused" }
        #expect(free.active, "a free pause keeps the service")
        #expect(try await flow.activeEntitlements().count == 1)

        try await flow.sandbox("unpause", subscription: code)
        _ = try await flow.waitUntil("unpaused") { _, raw in raw["status"] as? String == "active" }
        try await flow.sandbox("pause", subscription: code, json: #"{"mode":"void"}"#)
        let (void, _) = try await flow.waitUntil("paused (void)") { seed, raw in raw["status"] as? String == "paused" && !seed.active }
        #expect(!void.active)
        #expect(try await flow.activeEntitlements().isEmpty)
    }

    /// User A, whose token has no email, checks out with B's email for the
    /// plan B already has and pays. The provider keys customers by email, so
    /// both purchases share B's customer; neither purchase moves.
    @Test(arguments: ["paystack", "lemonsqueezy", "stripe"])
    func anotherUsersEmailAtCheckoutTakesNothingOver(provider: String) async throws {
        let stack = try self.stack
        let b = try await PurchaseFlow.make(stack, provider: provider)
        let bought = try await b.buySubscription()
        let bCode = try #require(bought.subscriptionCode)

        let a = try await PurchaseFlow.make(stack, provider: provider, email: b.email, tokenHasEmail: false)
        let product = try await a.subscriptionProduct()
        try await a.pay(checkoutURL: try await a.createCheckout(productID: product.productID, variantID: product.variantID))
        let (aStatus, _) = try await a.waitUntil("A's own purchase") { seed, _ in seed.active }
        let aCode = try #require(aStatus.subscriptionCode)
        #expect(aCode != bCode, "A sees only the subscription A paid for")

        let (bStatus, bRaw) = try await b.status()
        #expect(bStatus.active && bStatus.subscriptionCode == bCode, "B keeps B's subscription")
        let refused = try await a.cancel(code: bCode, emailToken: bought.emailToken)
        #expect(refused.status == 404, "A's cancel of B's subscription answered \(refused.status)")
        #expect(bRaw["cancel_at_period_end"] as? Bool == false)
        let (bAfter, bAfterRaw) = try await b.status()
        #expect(bAfter.subscriptionCode == bCode && bAfterRaw["cancel_at_period_end"] as? Bool == false)
    }
}
