import Foundation
import Models
import Testing
@testable import Projection

/// One test per provider status: what ``AccessRules`` grant, and for how long.
@Suite struct AccessRulesTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    static let test = AccessPolicy(testDeployment: true)

    static func state(_ provider: Provider, _ status: String, _ configure: (inout SubscriptionState) -> Void = { _ in }) -> SubscriptionState {
        var s = SubscriptionState(provider: provider, subscriptionID: "1")
        s.status = status
        s.renewsAt = now.addingTimeInterval(30 * 86_400)
        s.sourceUpdatedAt = now.addingTimeInterval(-3600)
        configure(&s)
        return s
    }

    static func access(_ s: SubscriptionState, _ policy: AccessPolicy = test) -> Access {
        AccessRules.access(s, policy: policy, at: now)
    }

    @Test func lemonSqueezyOnTrialIsATrialUntilItEnds() {
        let a = Self.access(Self.state(.lemonsqueezy, "on_trial") { $0.trialEndsAt = Self.now.addingTimeInterval(86_400) })
        #expect(a.isActive && a.willRenew && a.periodType == .trial)
        #expect(a.expiresAt == Self.now.addingTimeInterval(86_400))
    }

    @Test func lemonSqueezyActiveRenews() {
        let a = Self.access(Self.state(.lemonsqueezy, "active"))
        #expect(a.isActive && a.willRenew && a.periodType == .normal)
        #expect(a.expiresAt == Self.now.addingTimeInterval(30 * 86_400))
    }

    @Test func lemonSqueezyPastDueKeepsAccessWhileTheProviderRetries() {
        let a = Self.access(Self.state(.lemonsqueezy, "past_due") { $0.billingIssueDetectedAt = Self.now.addingTimeInterval(-86_400) })
        #expect(a.isActive && a.willRenew)
    }

    @Test func lemonSqueezyUnpaidHasNoAccessUnlessAGraceIsConfigured() {
        let unpaid = Self.state(.lemonsqueezy, "unpaid") { $0.billingIssueDetectedAt = Self.now.addingTimeInterval(-86_400) }
        #expect(!Self.access(unpaid).isActive)
        let graced = Self.access(unpaid, AccessPolicy(unpaidGrace: 2 * 86_400, testDeployment: true))
        #expect(graced.isActive && graced.expiresAt == Self.now.addingTimeInterval(86_400))
        #expect(!Self.access(unpaid, AccessPolicy(unpaidGrace: 3600, testDeployment: true)).isActive)
    }

    @Test func lemonSqueezyCancelledUntilEndsAt() {
        let inGrace = Self.access(
            Self.state(.lemonsqueezy, "cancelled") {
                $0.cancelAtPeriodEnd = true
                $0.endsAt = Self.now.addingTimeInterval(10)
            })
        #expect(inGrace.isActive && !inGrace.willRenew)
        let over = Self.access(Self.state(.lemonsqueezy, "cancelled") { $0.endsAt = Self.now.addingTimeInterval(-10) })
        #expect(!over.isActive)
    }

    @Test func lemonSqueezyPausedFreeKeepsServiceVoidDoesNot() {
        let free = Self.access(Self.state(.lemonsqueezy, "paused") { $0.pauseMode = "free" })
        #expect(free.isActive)
        let void = Self.access(Self.state(.lemonsqueezy, "paused") { $0.pauseMode = "void" })
        #expect(!void.isActive)
        let unknownMode = Self.access(Self.state(.lemonsqueezy, "paused"))
        #expect(!unknownMode.isActive)
    }

    @Test func lemonSqueezyExpiredHasNoAccess() {
        #expect(!Self.access(Self.state(.lemonsqueezy, "expired") { $0.endsAt = Self.now.addingTimeInterval(-10) }).isActive)
    }

    @Test func paystackActiveRenews() {
        let a = Self.access(Self.state(.paystack, "active"))
        #expect(a.isActive && a.willRenew)
    }

    @Test func paystackNonRenewingUntilThePeriodEnd() {
        let inPeriod = Self.access(
            Self.state(.paystack, "non-renewing") {
                $0.cancelAtPeriodEnd = true
                $0.endsAt = Self.now.addingTimeInterval(10)
            })
        #expect(inPeriod.isActive && !inPeriod.willRenew)
        let over = Self.access(
            Self.state(.paystack, "non-renewing") {
                $0.cancelAtPeriodEnd = true
                $0.endsAt = Self.now.addingTimeInterval(-10)
            })
        #expect(!over.isActive)
    }

    @Test func paystackAttentionOnlyWithinTheConfiguredGrace() {
        let attention = Self.state(.paystack, "attention") { $0.billingIssueDetectedAt = Self.now.addingTimeInterval(-3600) }
        #expect(!Self.access(attention).isActive)
        #expect(Self.access(attention, AccessPolicy(attentionGrace: 86_400, testDeployment: true)).isActive)
    }

    @Test(arguments: ["complete", "completed", "cancelled", "unknown", "something_new"])
    func paystackEndedStatusesHaveNoAccess(status: String) {
        #expect(!Self.access(Self.state(.paystack, status)).isActive)
    }

    @Test func aRefundedPaymentRevokesTheSubscription() {
        let a = Self.access(Self.state(.lemonsqueezy, "active") { $0.refundedAt = Self.now.addingTimeInterval(-60) })
        #expect(!a.isActive)
    }

    @Test func testModePurchasesNeverGrantInALiveDeploymentNorLiveOnesInATestDeployment() {
        let live = AccessPolicy(testDeployment: false)
        let testPurchase = Self.state(.lemonsqueezy, "active") { $0.testMode = true }
        let livePurchase = Self.state(.lemonsqueezy, "active") { $0.testMode = false }
        #expect(!Self.access(testPurchase, live).isActive)
        #expect(Self.access(livePurchase, live).isActive)
        #expect(!Self.access(livePurchase).isActive)
        #expect(Self.access(testPurchase).isActive)

        var order = ProjectedOrder(provider: .lemonsqueezy, orderID: "9", status: "paid")
        order.testMode = true
        #expect(!AccessRules.access(order, duration: nil, policy: live, at: Self.now).isActive)
        #expect(AccessRules.access(order, duration: nil, policy: Self.test, at: Self.now).isActive)
    }

    @Test func oneTimePurchasesGrantForLifeOrForTheirDuration() {
        var order = ProjectedOrder(provider: .lemonsqueezy, orderID: "9", status: "paid")
        order.paidAt = Self.now.addingTimeInterval(-2 * 86_400)
        let lifetime = AccessRules.access(order, duration: nil, policy: Self.test, at: Self.now)
        #expect(lifetime.isActive && lifetime.expiresAt == nil)
        #expect(AccessRules.access(order, duration: 3 * 86_400, policy: Self.test, at: Self.now).isActive)
        #expect(!AccessRules.access(order, duration: 86_400, policy: Self.test, at: Self.now).isActive)

        order.subscriptionID = "5"
        #expect(!AccessRules.access(order, duration: nil, policy: Self.test, at: Self.now).isActive, "a subscription's first order is not a purchase")
        order.subscriptionID = nil
        order.status = "refunded"
        order.refundedAt = Self.now
        #expect(!AccessRules.access(order, duration: nil, policy: Self.test, at: Self.now).isActive)
    }
}
