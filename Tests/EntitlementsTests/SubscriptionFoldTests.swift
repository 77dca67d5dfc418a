import Foundation
import BillingModel
import Testing
@testable import Entitlements

@Suite struct SubscriptionFoldTests {
    static let t0 = Date(timeIntervalSince1970: 1_790_000_000)

    static func lemonSqueezy(
        _ kind: BillingEventKind, status: String, at offset: TimeInterval, key: String,
        endsAt: Date? = nil, cancelled: Bool? = nil
    ) -> SubscriptionFold.LoggedEvent {
        var event = BillingEvent(kind: kind, provider: .lemonsqueezy, providerEventName: "x", entityKey: "lemonsqueezy:sub_1")
        event.subscriptionID = "1"
        event.status = status
        event.orderingTimestamp = t0.addingTimeInterval(offset)
        event.renewsAt = t0.addingTimeInterval(30 * 86_400)
        event.endsAt = endsAt
        event.cancelled = cancelled
        event.appUserID = "user-1"
        return .init(dedupKey: key, event: event)
    }

    static var purchaseThenCancel: [SubscriptionFold.LoggedEvent] {
        [
            lemonSqueezy(.subscriptionCreated, status: "active", at: 0, key: "a"),
            lemonSqueezy(.subscriptionUpdated, status: "active", at: 1, key: "b"),
            lemonSqueezy(.subscriptionCancelled, status: "cancelled", at: 60, key: "c", endsAt: t0.addingTimeInterval(30 * 86_400), cancelled: true),
        ]
    }

    @Test func anyDeliveryOrderGivesTheSameState() {
        let events = Self.purchaseThenCancel
        let expected = SubscriptionFold.fold(provider: .lemonsqueezy, subscriptionID: "1", events: events)
        #expect(expected.status == "cancelled")
        #expect(expected.cancelAtPeriodEnd)
        // Ownership is not the fold's: ProjectionWriterOwnershipTests.
        #expect(expected.appUserID == nil)
        for permutation in [[2, 1, 0], [1, 2, 0], [0, 2, 1], [2, 0, 1]] {
            let shuffled = permutation.map { events[$0] }
            #expect(SubscriptionFold.fold(provider: .lemonsqueezy, subscriptionID: "1", events: shuffled) == expected)
        }
    }

    @Test func anOlderEventNeverMovesTheStateBack() {
        let late = Self.lemonSqueezy(.subscriptionUpdated, status: "active", at: 30, key: "late")
        let state = SubscriptionFold.fold(provider: .lemonsqueezy, subscriptionID: "1", events: Self.purchaseThenCancel + [late])
        #expect(state.status == "cancelled")
    }

    @Test func tiesResolveByPrecedenceThenKey() {
        let created = Self.lemonSqueezy(.subscriptionCreated, status: "active", at: 0, key: "z")
        let expired = Self.lemonSqueezy(.subscriptionExpired, status: "expired", at: 0, key: "a")
        #expect(SubscriptionFold.fold(provider: .lemonsqueezy, subscriptionID: "1", events: [expired, created]).status == "expired")
        #expect(SubscriptionFold.fold(provider: .lemonsqueezy, subscriptionID: "1", events: [created, expired]).status == "expired")
    }

    @Test func paystackNotRenewThenDisable() {
        func event(_ kind: BillingEventKind, _ offset: TimeInterval, _ key: String) -> SubscriptionFold.LoggedEvent {
            var e = BillingEvent(kind: kind, provider: .paystack, providerEventName: "x", entityKey: "paystack:CUS_1")
            e.subscriptionID = "SUB_1"
            e.orderingTimestamp = Self.t0.addingTimeInterval(offset)
            e.emailToken = kind == .subscriptionCreated ? "tok" : nil
            e.status = kind == .subscriptionDisabled ? "complete" : nil
            return .init(dedupKey: key, event: e)
        }
        let events = [event(.subscriptionCreated, 0, "1"), event(.subscriptionNotRenewing, 5, "2"), event(.subscriptionDisabled, 9, "3")]
        let state = SubscriptionFold.fold(provider: .paystack, subscriptionID: "SUB_1", events: events.reversed())
        #expect(state.status == "complete")
        #expect(state.emailToken == "tok")
        #expect(state.cancelAtPeriodEnd)
    }

    static func paystack(_ kind: BillingEventKind, at offset: TimeInterval, key: String, status: String? = nil) -> SubscriptionFold.LoggedEvent {
        var e = BillingEvent(kind: kind, provider: .paystack, providerEventName: "x", entityKey: "paystack:CUS_1")
        e.subscriptionID = "SUB_1"
        e.orderingTimestamp = t0.addingTimeInterval(offset)
        e.status = status
        e.nextPaymentDate = kind == .subscriptionCreated || kind == .subscriptionNotRenewing ? t0.addingTimeInterval(30 * 86_400) : nil
        return .init(dedupKey: key, event: e)
    }

    static func observed(status: String, cancelled: Bool, at offset: TimeInterval, key: String) -> SubscriptionFold.LoggedEvent {
        var e = BillingEvent(
            kind: .subscriptionObserved, provider: .paystack, providerEventName: "storefront.resume_requested",
            entityKey: "paystack:SUB_1")
        e.subscriptionID = "SUB_1"
        e.status = status
        e.cancelled = cancelled
        e.renewsAt = t0.addingTimeInterval(30 * 86_400)
        e.orderingTimestamp = t0.addingTimeInterval(offset)
        return .init(dedupKey: key, event: e)
    }

    /// Paystack sends no webhook for `/subscription/enable`: the provider's
    /// answer to the resume is what makes it active and renewing again.
    @Test func aPaystackResumeSeenAtTheProviderEndsNonRenewing() {
        let events = [
            Self.paystack(.subscriptionCreated, at: 0, key: "c", status: "active"),
            Self.paystack(.subscriptionNotRenewing, at: 100, key: "n"),
            Self.observed(status: "active", cancelled: false, at: 200, key: "command:1"),
        ]
        let expected = SubscriptionFold.fold(provider: .paystack, subscriptionID: "SUB_1", events: events)
        #expect(expected.status == "active" && !expected.cancelAtPeriodEnd && expected.endsAt == nil)
        #expect(expected.unsubscribeDetectedAt == nil, "the resume cleared the cancellation")
        let access = AccessRules.access(expected, policy: AccessPolicy(testDeployment: true), at: Self.t0.addingTimeInterval(300))
        #expect(access.isActive && access.willRenew)
        // Any delivery order, with duplicates, gives the same state.
        for order in [[2, 1, 0], [1, 0, 2, 1], [0, 2, 2, 1]] {
            #expect(SubscriptionFold.fold(provider: .paystack, subscriptionID: "SUB_1", events: order.map { events[$0] }) == expected)
        }
        // A later cancellation (received after the fetch) refines it again.
        let again = SubscriptionFold.fold(
            provider: .paystack, subscriptionID: "SUB_1", events: events + [Self.paystack(.subscriptionNotRenewing, at: 400, key: "n2")])
        #expect(again.status == "non-renewing" && again.cancelAtPeriodEnd && again.unsubscribeDetectedAt == Self.t0.addingTimeInterval(400))
    }

    /// Issue 36's arrival-order finding: `subscription.not_renew` (whose
    /// `next_payment_date` is null, as Paystack's example shows) received
    /// before `charge.success` and `subscription.create` left `ends_at` empty,
    /// while the same events in order filled it. Every arrival order (each
    /// event ordered by its receipt, so the order is the arrival) gives the
    /// same end, status and renewal flag.
    @Test func aPaystackNotRenewReceivedFirstStillEndsAtThePeriodEnd() {
        let periodEnd = Self.t0.addingTimeInterval(30 * 86_400)
        let kinds: [(BillingEventKind, String?)] = [
            (.subscriptionCreated, "active"), (.paymentSucceeded, "success"), (.subscriptionNotRenewing, "non-renewing"),
        ]
        for order in [[0, 1, 2], [2, 1, 0], [2, 0, 1], [1, 2, 0], [0, 2, 1], [1, 0, 2]] {
            let events = order.enumerated().map { arrival, index in
                var event = Self.paystack(kinds[index].0, at: Double(arrival), key: "\(index)", status: kinds[index].1)
                if kinds[index].0 == .subscriptionNotRenewing { event.event.nextPaymentDate = nil }
                return event
            }
            let state = SubscriptionFold.fold(provider: .paystack, subscriptionID: "SUB_1", events: events)
            #expect(state.status == "non-renewing" && state.cancelAtPeriodEnd && state.endsAt == periodEnd, "arrival \(order): \(state)")
        }
    }

    @Test func pauseModeComesAndGoesWithTheSubscriptionObject() {
        var paused = Self.lemonSqueezy(.subscriptionPaused, status: "paused", at: 10, key: "p")
        paused.event.pauseMode = "free"
        let state = SubscriptionFold.fold(
            provider: .lemonsqueezy, subscriptionID: "1",
            events: [Self.lemonSqueezy(.subscriptionCreated, status: "active", at: 0, key: "a"), paused])
        #expect(state.status == "paused" && state.pauseMode == "free")
        let unpaused = SubscriptionFold.fold(
            provider: .lemonsqueezy, subscriptionID: "1",
            events: [
                paused, Self.lemonSqueezy(.subscriptionUnpaused, status: "active", at: 20, key: "u"),
            ])
        #expect(unpaused.status == "active" && unpaused.pauseMode == nil)
    }

    @Test func billingIssueAndPaymentDatesFollowTheEvents() {
        func invoice(_ kind: BillingEventKind, at offset: TimeInterval, key: String) -> SubscriptionFold.LoggedEvent {
            var e = BillingEvent(kind: kind, provider: .lemonsqueezy, providerEventName: "x", entityKey: "lemonsqueezy:sub_1")
            e.subscriptionID = "1"
            e.orderingTimestamp = Self.t0.addingTimeInterval(offset)
            e.paidAt = kind == .paymentSucceeded ? e.orderingTimestamp : nil
            return .init(dedupKey: key, event: e)
        }
        var created = Self.lemonSqueezy(.subscriptionCreated, status: "active", at: 0, key: "a")
        created.event.createdAt = Self.t0
        let failing = [
            created, invoice(.paymentSucceeded, at: 1, key: "p1"), invoice(.paymentFailed, at: 50, key: "f"),
            Self.lemonSqueezy(.subscriptionUpdated, status: "past_due", at: 51, key: "u"),
        ]
        let state = SubscriptionFold.fold(provider: .lemonsqueezy, subscriptionID: "1", events: failing.reversed())
        #expect(state.originalPurchaseAt == Self.t0 && state.latestPurchaseAt == Self.t0.addingTimeInterval(1))
        #expect(state.billingIssueDetectedAt == Self.t0.addingTimeInterval(50))
        let recovered = SubscriptionFold.fold(
            provider: .lemonsqueezy, subscriptionID: "1",
            events: failing + [
                invoice(.paymentSucceeded, at: 60, key: "p2"), Self.lemonSqueezy(.subscriptionUpdated, status: "active", at: 61, key: "u2"),
            ])
        #expect(recovered.billingIssueDetectedAt == nil && recovered.latestPurchaseAt == Self.t0.addingTimeInterval(60))
        let refunded = SubscriptionFold.fold(
            provider: .lemonsqueezy, subscriptionID: "1", events: failing + [invoice(.paymentRefunded, at: 70, key: "r")])
        #expect(refunded.refundedAt == Self.t0.addingTimeInterval(70))
        #expect(!AccessRules.access(refunded, policy: AccessPolicy(testDeployment: true), at: Self.t0.addingTimeInterval(80)).isActive)
    }

    /// Every ordering of one subscription's whole life, with a duplicated and
    /// a late event, grants the same entitlements.
    @Test func everyPermutationOfALifeGivesTheSameEntitlements() {
        var created = Self.lemonSqueezy(.subscriptionCreated, status: "active", at: 0, key: "a")
        created.event.productID = "2"
        let events = [
            created, Self.lemonSqueezy(.subscriptionUpdated, status: "active", at: 5, key: "b"),
            Self.lemonSqueezy(
                .subscriptionCancelled, status: "cancelled", at: 60, key: "c", endsAt: Self.t0.addingTimeInterval(86_400), cancelled: true),
            Self.lemonSqueezy(
                .subscriptionExpired, status: "expired", at: 86_400, key: "d", endsAt: Self.t0.addingTimeInterval(86_400), cancelled: true),
            Self.lemonSqueezy(.subscriptionUpdated, status: "active", at: 30, key: "late"),
        ]
        let resolver = EntitlementResolver(policy: AccessPolicy(testDeployment: true))
        func entitlements(_ list: [SubscriptionFold.LoggedEvent], at offset: TimeInterval) -> [EntitlementInfo] {
            let state = SubscriptionFold.fold(provider: .lemonsqueezy, subscriptionID: "1", events: list)
            return resolver.entitlements(subscriptions: [state], orders: [], at: Self.t0.addingTimeInterval(offset))
        }
        let expected = entitlements(events, at: 90_000)
        #expect(expected.map(\.identifier) == ["ls_2"] && expected.allSatisfy { !$0.isActive })
        for permutation in Self.permutations(Array(events.indices)) {
            #expect(entitlements(permutation.map { events[$0] } + [events[permutation[0]]], at: 90_000) == expected)
        }
        let beforeExpiry = [events[0], events[1], events[2], events[4]]
        #expect(entitlements(beforeExpiry, at: 100).first?.isActive == true, "cancelled but inside its paid period")
    }

    /// Extending a folded state with later events is folding the whole log;
    /// an earlier event is refused so the caller folds the log instead.
    @Test func extendingInOrderEqualsRefoldingAndRefusesOutOfOrder() {
        let events = Self.purchaseThenCancel
        for split in 0...events.count {
            let head = SubscriptionFold.fold(provider: .lemonsqueezy, subscriptionID: "1", events: Array(events[..<split]))
            let tail = Array(events[split...])
            let whole = SubscriptionFold.fold(provider: .lemonsqueezy, subscriptionID: "1", events: events)
            if split == 0 {
                #expect(SubscriptionFold.extend(head, with: tail) == nil, "a state that applied nothing has no position")
            } else {
                #expect(SubscriptionFold.extend(head, with: tail) == whole, "split at \(split)")
            }
        }
        let later = SubscriptionFold.fold(provider: .lemonsqueezy, subscriptionID: "1", events: [events[2]])
        #expect(SubscriptionFold.extend(later, with: [events[0]]) == nil)
        #expect(SubscriptionFold.extend(later, with: []) == later)
    }

    static func permutations(_ items: [Int]) -> [[Int]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { i in
            permutations(Array(items[..<i] + items[(i + 1)...])).map { [items[i]] + $0 }
        }
    }
}
