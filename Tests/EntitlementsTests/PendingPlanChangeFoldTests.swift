import Foundation
import BillingModel
import Testing

@testable import Entitlements

/// A plan change scheduled for the period's end, as the fold keeps it: from
/// the plan-change command's observed state until the subscription is on the
/// new plan, or is cancelled.
@Suite struct PendingPlanChangeFoldTests {
    func logged(
        _ key: String, _ at: TimeInterval, kind: BillingEventKind = .subscriptionUpdated, variant: String, pending: String? = nil,
        cancelled: Bool = false
    ) -> SubscriptionFold.LoggedEvent {
        var e = BillingEvent(kind: kind, provider: .stripe, providerEventName: "x", entityKey: "stripe:sub_1")
        e.subscriptionID = "sub_1"
        e.status = "active"
        e.variantID = variant
        e.cancelled = cancelled
        e.pendingVariantID = pending
        e.pendingChangeAt = pending.map { _ in Date(timeIntervalSince1970: 2_000) }
        e.orderingTimestamp = Date(timeIntervalSince1970: at)
        return .init(dedupKey: key, event: e)
    }

    func fold(_ events: [SubscriptionFold.LoggedEvent]) -> SubscriptionState {
        SubscriptionFold.fold(provider: .stripe, subscriptionID: "sub_1", events: events)
    }

    @Test func aScheduledChangeStandsUntilThePlanIsTheNewOne() {
        let created = logged("a", 100, kind: .subscriptionCreated, variant: "price_M")
        let scheduled = logged("command:c1", 200, kind: .subscriptionObserved, variant: "price_M", pending: "price_Y")
        let webhook = logged("b", 201, variant: "price_M")
        let pending = fold([created, scheduled, webhook])
        #expect(pending.pendingVariantID == "price_Y" && pending.pendingChangeAt == Date(timeIntervalSince1970: 2_000))
        #expect(pending.variantID == "price_M", "the current plan (and its entitlement) stays until then")
        let renewed = fold([created, scheduled, webhook, logged("c", 2_000, variant: "price_Y")])
        #expect(renewed.pendingVariantID == nil && renewed.pendingChangeAt == nil && renewed.variantID == "price_Y")
        // Any order of the same records gives the same state.
        #expect(fold([logged("c", 2_000, variant: "price_Y"), webhook, scheduled, created]).pendingVariantID == nil)
    }

    @Test func aCancellationVoidsIt() {
        let events = [
            logged("a", 100, kind: .subscriptionCreated, variant: "price_M"),
            logged("command:c1", 200, kind: .subscriptionObserved, variant: "price_M", pending: "price_Y"),
            logged("b", 300, variant: "price_M", cancelled: true),
        ]
        #expect(fold(events).pendingVariantID == nil)
    }
}
