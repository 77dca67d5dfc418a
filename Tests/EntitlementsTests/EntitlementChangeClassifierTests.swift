import Foundation
import BillingModel
import Testing
@testable import ProjectionStore
@testable import Entitlements

/// The outbox's naming rule, on entitlement lists the real resolver computes
/// from purchases before and after each kind of change.
@Suite struct EntitlementChangeClassifierTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    static let resolver = EntitlementResolver(policy: AccessPolicy(testDeployment: true))

    static func subscription(_ status: String, _ configure: (inout SubscriptionState) -> Void = { _ in }) -> SubscriptionState {
        var s = SubscriptionState(provider: .lemonsqueezy, subscriptionID: "1")
        s.productID = "2"
        s.variantID = "20"
        s.status = status
        s.renewsAt = now.addingTimeInterval(86_400)
        s.originalPurchaseAt = now.addingTimeInterval(-86_400)
        s.latestPurchaseAt = now.addingTimeInterval(-86_400)
        configure(&s)
        return s
    }

    static func entitlements(_ subscriptions: SubscriptionState..., orders: [ProjectedOrder] = []) -> [EntitlementInfo] {
        resolver.entitlements(subscriptions: subscriptions, orders: orders, at: now)
    }

    static func kind(_ before: [EntitlementInfo], _ after: [EntitlementInfo], transferred: Bool = false) -> EntitlementChange.Kind? {
        EntitlementChangeClassifier.classify(before: before, after: after, transferred: transferred)
    }

    @Test func aFirstPurchaseIsGranted() {
        #expect(Self.kind([], Self.entitlements(Self.subscription("active"))) == .granted)
    }

    @Test func aLaterPeriodIsARenewal() {
        let renewed = Self.subscription("active") {
            $0.renewsAt = Self.now.addingTimeInterval(31 * 86_400)
            $0.latestPurchaseAt = Self.now
        }
        #expect(Self.kind(Self.entitlements(Self.subscription("active")), Self.entitlements(renewed)) == .renewed)
    }

    @Test func aCancellationThatStillGrantsIsExpiring() {
        let cancelled = Self.subscription("cancelled") {
            $0.endsAt = Self.now.addingTimeInterval(86_400)
            $0.unsubscribeDetectedAt = Self.now
        }
        let after = Self.entitlements(cancelled)
        #expect(after.first?.isActive == true && after.first?.willRenew == false)
        #expect(Self.kind(Self.entitlements(Self.subscription("active")), after) == .expiring)
    }

    @Test func aFailedPaymentWhileAccessContinuesIsABillingIssue() {
        let pastDue = Self.subscription("past_due") { $0.billingIssueDetectedAt = Self.now }
        let after = Self.entitlements(pastDue)
        #expect(after.first?.isActive == true)
        #expect(Self.kind(Self.entitlements(Self.subscription("active")), after) == .billingIssue)
        // Fixed again: access goes on with new terms.
        #expect(Self.kind(after, Self.entitlements(Self.subscription("active"))) == .renewed)
    }

    @Test func aRefundThatEndsAccessIsRefundedAndAnExpiryIsRevoked() {
        let active = Self.entitlements(Self.subscription("active"))
        let refunded = Self.entitlements(Self.subscription("active") { $0.refundedAt = Self.now.addingTimeInterval(-60) })
        #expect(refunded.first?.isActive == false && refunded.first?.refundedAt != nil)
        #expect(Self.kind(active, refunded) == .refunded)
        #expect(Self.kind(active, Self.entitlements(Self.subscription("expired"))) == .revoked)
        // A refund of what already granted nothing is still news; other facts of it are not.
        let expired = Self.entitlements(Self.subscription("expired"))
        #expect(Self.kind(expired, Self.entitlements(Self.subscription("expired") { $0.refundedAt = Self.now })) == .refunded)
        #expect(Self.kind(expired, Self.entitlements(Self.subscription("expired") { $0.originalPurchaseAt = Self.now })) == nil)
    }

    @Test func equalListsAnnounceNothingEvenWhenTransferred() {
        let list = Self.entitlements(Self.subscription("active"))
        #expect(Self.kind(list, list) == nil)
        #expect(Self.kind(list, list, transferred: true) == nil)
        #expect(Self.kind([], [], transferred: true) == nil)
    }

    @Test func anOwnershipMoveIsATransferForBothSides() {
        let list = Self.entitlements(Self.subscription("active"))
        #expect(Self.kind(list, [], transferred: true) == .transferred)
        #expect(Self.kind([], list, transferred: true) == .transferred)
    }

    @Test func losingAccessOutranksGainingItInOneChange() {
        var other = Self.subscription("active")
        other.subscriptionID = "2"
        other.productID = "3"
        other.variantID = "30"
        // ls_2 expires while ls_3 is bought in the same batch.
        let before = Self.entitlements(Self.subscription("active"))
        let after = Self.entitlements(Self.subscription("expired"), other)
        #expect(Self.kind(before, after) == .revoked)
    }
}
