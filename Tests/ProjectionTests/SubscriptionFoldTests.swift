import Foundation
import Models
import Testing
@testable import Projection

@Suite struct SubscriptionFoldTests {
    static let t0 = Date(timeIntervalSince1970: 1_790_000_000)

    static func lemonSqueezy(_ kind: BillingEventKind, status: String, at offset: TimeInterval, key: String,
                             endsAt: Date? = nil, cancelled: Bool? = nil) -> SubscriptionFold.LoggedEvent {
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
        #expect(expected.appUserID == "user-1")
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

    @Test func activeMeansWhatTheProviderMeans() {
        var state = SubscriptionState(provider: .lemonsqueezy, subscriptionID: "1")
        let now = Self.t0
        state.status = "past_due"
        #expect(state.isActive(at: now))
        state.status = "cancelled"
        state.endsAt = now.addingTimeInterval(10)
        #expect(state.isActive(at: now))
        state.endsAt = now.addingTimeInterval(-10)
        #expect(!state.isActive(at: now))
        state.status = "expired"
        #expect(!state.isActive(at: now))

        var paystack = SubscriptionState(provider: .paystack, subscriptionID: "SUB_1")
        paystack.status = "non-renewing"
        paystack.endsAt = now.addingTimeInterval(10)
        #expect(paystack.isActive(at: now))
        paystack.endsAt = now.addingTimeInterval(-10)
        #expect(!paystack.isActive(at: now))
        paystack.status = "complete"
        #expect(!paystack.isActive(at: now))
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
}
