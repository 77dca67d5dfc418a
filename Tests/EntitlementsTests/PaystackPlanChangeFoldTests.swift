import Foundation
import BillingModel
import Testing

@testable import Entitlements

/// A Paystack plan change at the period end: the subscription ends there
/// (non-renewing) carrying the pending change, and the new plan's
/// subscription, made to start then, grants nothing before, so the
/// entitlement stays on the current plan until the period ends.
@Suite struct PaystackPlanChangeFoldTests {
    static let periodEnd = Date(timeIntervalSince1970: 2_000_000)
    static let policy = AccessPolicy(testDeployment: true)
    static let monthly = "PLN_sbxpremmonth01", annual = "PLN_sbxpremannual1"

    func event(
        _ kind: BillingEventKind, _ code: String, at: TimeInterval, status: String?, plan: String?, next: Date? = nil
    ) -> BillingEvent {
        var e = BillingEvent(kind: kind, provider: .paystack, providerEventName: "x", entityKey: "paystack:CUS_1")
        e.subscriptionID = code
        e.status = status
        e.productID = plan
        e.variantID = plan
        e.nextPaymentDate = next
        e.renewsAt = next
        e.orderingTimestamp = Date(timeIntervalSince1970: at)
        return e
    }

    /// The old subscription: bought, then the change command's observation (non-renewing, pending annual).
    func old(ended: Bool = false) -> SubscriptionState {
        var observed = event(.subscriptionObserved, "SUB_old", at: 200, status: "non-renewing", plan: Self.monthly)
        observed.cancelled = true
        observed.endsAt = Self.periodEnd
        observed.pendingVariantID = Self.annual
        observed.pendingChangeAt = Self.periodEnd
        var events: [SubscriptionFold.LoggedEvent] = [
            .init(dedupKey: "a", event: event(.subscriptionCreated, "SUB_old", at: 100, status: "active", plan: Self.monthly, next: Self.periodEnd)),
            .init(dedupKey: "command:c1", event: observed),
            .init(dedupKey: "b", event: event(.subscriptionNotRenewing, "SUB_old", at: 201, status: "non-renewing", plan: Self.monthly)),
        ]
        if ended {
            events.append(.init(dedupKey: "c", event: event(.subscriptionDisabled, "SUB_old", at: 2_000_001, status: "cancelled", plan: nil)))
        }
        return SubscriptionFold.fold(provider: .paystack, subscriptionID: "SUB_old", events: events)
    }

    /// The new one: the command's observation (starts at the period end), then Paystack's own events.
    func successor(renewedTo next: Date? = nil) -> SubscriptionState {
        var observed = event(.subscriptionObserved, "SUB_new", at: 200, status: "active", plan: Self.annual, next: Self.periodEnd)
        observed.startsAt = Self.periodEnd
        var events: [SubscriptionFold.LoggedEvent] = [
            .init(dedupKey: "command:c1:successor", event: observed),
            .init(dedupKey: "d", event: event(.subscriptionCreated, "SUB_new", at: 201, status: "active", plan: Self.annual, next: Self.periodEnd)),
        ]
        if let next {
            events.append(.init(dedupKey: "e", event: event(.invoiceUpdated, "SUB_new", at: 2_000_002, status: "success", plan: nil, next: next)))
        }
        return SubscriptionFold.fold(provider: .paystack, subscriptionID: "SUB_new", events: events)
    }

    @Test func theCancellationThatCarriesTheChangeKeepsItPendingUntilTheEnd() {
        let pending = old()
        #expect(pending.status == "non-renewing" && pending.cancelAtPeriodEnd)
        #expect(pending.pendingVariantID == Self.annual && pending.pendingChangeAt == Self.periodEnd)
        #expect(old(ended: true).pendingVariantID == nil, "ended: the new subscription has taken over")
    }

    @Test func theNewSubscriptionGrantsNothingBeforeItStarts() {
        let before = Self.periodEnd.addingTimeInterval(-86_400)
        let new = successor()
        #expect(new.startsAt == Self.periodEnd && new.variantID == Self.annual)
        #expect(!new.hasStarted(at: before) && !AccessRules.access(new, policy: Self.policy, at: before).isActive)
        #expect(AccessRules.access(old(), policy: Self.policy, at: before).isActive, "the paid period runs on")
        // From the start date on, or once Paystack has charged it, it grants.
        #expect(AccessRules.access(new, policy: Self.policy, at: Self.periodEnd.addingTimeInterval(60)).isActive)
        let charged = successor(renewedTo: Self.periodEnd.addingTimeInterval(365 * 86_400))
        #expect(charged.hasStarted(at: before) && AccessRules.access(charged, policy: Self.policy, at: before).isActive)
    }

    @Test func theEntitlementFollowsTheNewPlanOnlyOnceItStarts() throws {
        let configuration = try EntitlementsConfiguration.parse(
            Array(#"{"entitlements": {"premium": {"paystack": {"plans": ["PLN_sbxpremmonth01", "PLN_sbxpremannual1"]}}}}"#.utf8))
        let resolver = EntitlementResolver(configuration: configuration, policy: Self.policy)
        let before = Self.periodEnd.addingTimeInterval(-86_400)
        let pending = resolver.entitlements(subscriptions: [successor(), old()], orders: [], at: before)
        #expect(pending.count == 1 && pending.first?.isActive == true && pending.first?.productID == "ps_\(Self.monthly)", "\(pending)")
        let renewed = [successor(renewedTo: Self.periodEnd.addingTimeInterval(365 * 86_400)), old()]
        let after = resolver.entitlements(subscriptions: renewed, orders: [], at: before)
        #expect(after.first?.productID == "ps_\(Self.annual)", "\(after)")
    }
}
