import Foundation
import BillingModel
import Testing
@testable import ProjectorService

/// An entitlement that moved to another plan is announced with `cause: plan_change`,
/// whichever record brought the new plan first.
@Suite struct PlanChangeCauseTests {
    static func info(_ product: String, active: Bool = true, source: EntitlementInfo.Source = .subscription) -> EntitlementInfo {
        EntitlementInfo(
            identifier: "premium", isActive: active, expiresAt: nil, willRenew: true, periodType: .normal, productID: product,
            provider: .lemonsqueezy, source: source, latestPurchaseAt: nil, originalPurchaseAt: nil, unsubscribeDetectedAt: nil,
            billingIssueDetectedAt: nil, sandbox: true)
    }

    @Test func thePlanChangeCommandIsAPlanChange() {
        let command = SubscriptionCommand(
            commandID: "c1", kind: .planChangeRequested, provider: .stripe, subscriptionID: "sub_1", appUserID: "u", requestedAt: Date())
        #expect(
            EntitlementCauseFinder.cause(of: [EntitlementCauseFinderTests.touch("sub_1", "stripe")], in: [.command(command)])
                == .init(kind: .planChange, provider: .stripe, reference: "c1"))
        #expect(SubscriptionCommand.Kind(rawValue: "plan_change_requested") == .planChangeRequested)
    }

    @Test func aWebhookThatMovesAnActiveEntitlementToAnotherProductIsAPlanChange() {
        let finder = EntitlementCauseFinder([EntitlementCauseFinderTests.webhook("k1", subscription: "1")])
        let touches = [EntitlementCauseFinderTests.touch("1")]
        let moved = finder.cause(of: touches, before: [Self.info("ls_2")], after: [Self.info("ls_2.3")])
        #expect(moved == .init(kind: .planChange, provider: .lemonsqueezy, reference: "k1"))
        // A renewal on the same plan, a first purchase, or access ending is not.
        #expect(finder.cause(of: touches, before: [Self.info("ls_2")], after: [Self.info("ls_2")])?.kind == .providerEvent)
        #expect(finder.cause(of: touches, before: [], after: [Self.info("ls_2")])?.kind == .providerEvent)
        #expect(finder.cause(of: touches, before: [Self.info("ls_2")], after: [Self.info("ls_2.3", active: false)])?.kind == .providerEvent)
        // A one-time purchase taking over from a subscription is not a plan change.
        #expect(finder.cause(of: touches, before: [Self.info("ls_2")], after: [Self.info("ls_1", source: .purchase)])?.kind == .providerEvent)
    }
}
