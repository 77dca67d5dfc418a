import Foundation
import BillingModel
import Testing

@testable import Entitlements

private let day: TimeInterval = 86_400

/// Refunds, disputes and late events in the fold (``MoneyBack``), and what
/// the access rules make of them.
@Suite struct MoneyBackFoldTests {
    static let t0 = Date(timeIntervalSince1970: 1_790_000_000)
    static let keep = AccessPolicy(testDeployment: false)
    static let revoke = AccessPolicy(partialRefund: .revoke, testDeployment: false)

    /// A Paystack event of subscription `SUB_1` (customer `CUS_1`, plan `PLN_1`).
    static func paystack(
        _ kind: BillingEventKind, at offset: TimeInterval, key: String, reference: String? = nil,
        amount: Int64? = nil, refunded: Int64? = nil, resolution: String? = nil, subscription: Bool = true
    ) -> SubscriptionFold.LoggedEvent {
        var e = BillingEvent(kind: kind, provider: .paystack, providerEventName: "x", entityKey: "paystack:CUS_1")
        e.subscriptionID = subscription ? "SUB_1" : nil
        e.customerID = "CUS_1"
        e.productID = "PLN_1"
        e.variantID = "PLN_1"
        e.testMode = false
        e.transactionReference = reference
        e.amount = amount
        e.refundedAmount = refunded
        e.disputeResolution = resolution
        e.orderingTimestamp = t0.addingTimeInterval(offset)
        if kind == .paymentSucceeded { e.paidAt = e.orderingTimestamp }
        if kind == .subscriptionCreated { e.nextPaymentDate = t0.addingTimeInterval(30 * day) }
        return .init(dedupKey: key, event: e)
    }

    /// A month of Paystack: created, first charge `R1` (5000), renewal charge `R2` a month later.
    static let paidTwice: [SubscriptionFold.LoggedEvent] = [
        paystack(.subscriptionCreated, at: 0, key: "create"),
        paystack(.paymentSucceeded, at: 1, key: "charge1", reference: "R1", amount: 5000, subscription: false),
        paystack(.paymentSucceeded, at: 30 * day, key: "charge2", reference: "R2", amount: 5000, subscription: false),
    ]

    static func fold(_ events: [SubscriptionFold.LoggedEvent]) -> SubscriptionState {
        SubscriptionFold.fold(provider: .paystack, subscriptionID: "SUB_1", events: events)
    }

    static func isActive(_ s: SubscriptionState, _ policy: AccessPolicy = keep, at offset: TimeInterval = 31 * day) -> Bool {
        AccessRules.access(s, policy: policy, at: t0.addingTimeInterval(offset)).isActive
    }

    @Test func aFullRefundOfTheCurrentPeriodRevokesUntilTheNextPayment() {
        var state = Self.fold(Self.paidTwice + [Self.paystack(.refundProcessed, at: 31 * day, key: "refund", reference: "R2", refunded: 5000)])
        #expect(state.refundedAt == Self.t0.addingTimeInterval(31 * day))
        #expect(!Self.isActive(state))
        let renewal = Self.paystack(.paymentSucceeded, at: 40 * day, key: "charge3", reference: "R3", amount: 5000, subscription: false)
        state = Self.fold(Self.paidTwice + [Self.paystack(.refundProcessed, at: 31 * day, key: "refund", reference: "R2"), renewal])
        #expect(state.refundedAt == nil, "a later payment paid for a new period")
        #expect(Self.isActive(state, at: 41 * day))
    }

    @Test func aRefundOfAnOlderPeriodLeavesThePaidCurrentPeriod() {
        let state = Self.fold(Self.paidTwice + [Self.paystack(.refundProcessed, at: 31 * day, key: "refund", reference: "R1")])
        #expect(state.refundedAt == nil)
        #expect(state.partiallyRefundedAt == nil)
        #expect(Self.isActive(state))
    }

    @Test func aPartialRefundFollowsThePolicy() {
        let state = Self.fold(Self.paidTwice + [Self.paystack(.refundProcessed, at: 31 * day, key: "refund", reference: "R2", refunded: 1000)])
        #expect(state.refundedAt == nil)
        #expect(state.partiallyRefundedAt == Self.t0.addingTimeInterval(31 * day))
        #expect(Self.isActive(state, Self.keep))
        #expect(!Self.isActive(state, Self.revoke))
    }

    @Test func paystackPartialRefundsAddUpToAFullOne() {
        let first = Self.paystack(.refundProcessed, at: 31 * day, key: "refund1", reference: "R2", refunded: 2500)
        let second = Self.paystack(.refundProcessed, at: 32 * day, key: "refund2", reference: "R2", refunded: 2500)
        let once = Self.fold(Self.paidTwice + [first])
        #expect(once.partiallyRefundedAt != nil && once.refundedAt == nil)
        for events in [Self.paidTwice + [first, second], [second] + Self.paidTwice + [first]] {
            let twice = Self.fold(events)
            #expect(twice.refundedAt == Self.t0.addingTimeInterval(32 * day), "2500 + 2500 of 5000 is everything")
        }
    }

    @Test func aRefundWithoutAnAmountIsAFullRefund() {
        let state = Self.fold(Self.paidTwice + [Self.paystack(.refundProcessed, at: 31 * day, key: "refund", reference: "R2")])
        #expect(state.refundedAt != nil)
    }

    @Test(arguments: [("merchant-accepted", false), ("declined", true)])
    func aDisputeFlagsThenRevokesOrRestores(resolution: String, stillActive: Bool) {
        let opened = Self.paystack(.disputeCreated, at: 31 * day, key: "d1", reference: "R2", amount: 5000, refunded: 5000)
        let open = Self.fold(Self.paidTwice + [opened])
        #expect(open.disputeOpenedAt == Self.t0.addingTimeInterval(31 * day))
        #expect(Self.isActive(open), "an open dispute is flagged, not revoked")
        let resolved = Self.paystack(.disputeResolved, at: 40 * day, key: "d2", reference: "R2", amount: 5000, refunded: 5000, resolution: resolution)
        let closed = Self.fold(Self.paidTwice + [opened, resolved])
        #expect(closed.disputeOpenedAt == nil)
        #expect(Self.isActive(closed, at: 41 * day) == stillActive)
    }

    @Test func aLemonSqueezyRefundIsFullOrPartialByItsOwnTotals() {
        func invoice(_ kind: BillingEventKind, at offset: TimeInterval, key: String, refunded: Int64? = nil) -> SubscriptionFold.LoggedEvent {
            var e = BillingEvent(kind: kind, provider: .lemonsqueezy, providerEventName: "x", entityKey: "lemonsqueezy:sub_1")
            e.subscriptionID = "1"
            e.invoiceID = "9"
            e.amount = 999
            e.refundedAmount = refunded
            e.createdAt = Self.t0.addingTimeInterval(1)
            e.orderingTimestamp = Self.t0.addingTimeInterval(offset)
            if kind == .paymentSucceeded { e.paidAt = Self.t0.addingTimeInterval(2) }
            return .init(dedupKey: key, event: e)
        }
        var created = BillingEvent(kind: .subscriptionCreated, provider: .lemonsqueezy, providerEventName: "x", entityKey: "lemonsqueezy:sub_1")
        created.subscriptionID = "1"
        created.status = "active"
        created.renewsAt = Self.t0.addingTimeInterval(30 * day)
        created.orderingTimestamp = Self.t0
        let base = [SubscriptionFold.LoggedEvent(dedupKey: "c", event: created), invoice(.paymentSucceeded, at: 2, key: "p")]
        let partial = SubscriptionFold.fold(
            provider: .lemonsqueezy, subscriptionID: "1", events: base + [invoice(.paymentRefunded, at: day, key: "r", refunded: 300)])
        #expect(partial.partiallyRefundedAt != nil)
        #expect(partial.refundedAt == nil)
        let full = SubscriptionFold.fold(
            provider: .lemonsqueezy, subscriptionID: "1", events: base + [invoice(.paymentRefunded, at: day, key: "r", refunded: 999)])
        #expect(full.refundedAt == Self.t0.addingTimeInterval(day))
        #expect(!AccessRules.access(full, policy: Self.keep, at: Self.t0.addingTimeInterval(2 * day)).isActive)
    }

    @Test func aLatePaystackCreateOrFailureNeverRevivesAnEndedSubscription() {
        var notRenew = Self.paystack(.subscriptionNotRenewing, at: 10, key: "not_renew")
        notRenew.event.nextPaymentDate = Self.t0.addingTimeInterval(30 * day)
        let disable = Self.paystack(.subscriptionDisabled, at: 30 * day, key: "disable")
        let lateCreate = Self.paystack(.subscriptionCreated, at: 20, key: "create")
        let state = Self.fold([notRenew, lateCreate])
        #expect(state.status == "non-renewing")
        #expect(state.endsAt == Self.t0.addingTimeInterval(30 * day))
        let ended = Self.fold([notRenew, disable, Self.paystack(.paymentFailed, at: 31 * day, key: "late_failure"), lateCreate])
        #expect(ended.status == "cancelled")
        let lateNotRenew = Self.paystack(.subscriptionNotRenewing, at: 31 * day, key: "late_not_renew")
        #expect(Self.fold([Self.paystack(.subscriptionCreated, at: 0, key: "c"), disable, lateNotRenew]).status == "cancelled")
    }

    /// Every order of a life with money back yields the same state: the
    /// fold's total order, not the delivery order, decides.
    @Test func everyPermutationWithRefundsAndDisputesGivesTheSameState() {
        let life =
            Self.paidTwice + [
                Self.paystack(.disputeCreated, at: 31 * day, key: "d1", reference: "R2", amount: 5000),
                Self.paystack(.refundProcessed, at: 32 * day, key: "refund", reference: "R1", refunded: 2000),
                Self.paystack(.disputeResolved, at: 35 * day, key: "d2", reference: "R2", amount: 5000, resolution: "merchant-accepted"),
            ]
        let expected = Self.fold(life)
        #expect(expected.refundedAt == Self.t0.addingTimeInterval(35 * day))
        #expect(expected.disputeOpenedAt == nil)
        var count = 0
        for permutation in Self.permutations(Array(life.indices)) {
            #expect(Self.fold(permutation.map { life[$0] }) == expected, "order \(permutation)")
            count += 1
        }
        #expect(count == 720)
    }

    static func permutations(_ items: [Int]) -> [[Int]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { index -> [[Int]] in
            var rest = items
            let first = rest.remove(at: index)
            return permutations(rest).map { [first] + $0 }
        }
    }
}
