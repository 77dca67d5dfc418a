import Foundation
import BillingModel
import Testing

@testable import Entitlements

/// `storefront report` and plan changes (docs/plan-changes.md): a
/// subscription moved to another plan keeps its history, so the report
/// counts the change of its MRR as expansion or contraction, never as churn
/// and a new subscription.
@Suite struct PlanChangeRevenueTests {
    static let book: PriceBook = {
        var book = PriceBook()
        book.set(RecurringPrice(amount: 499, currency: "USD", interval: .init(unit: .month)), provider: .lemonsqueezy, variantID: "2")
        book.set(RecurringPrice(amount: 4999, currency: "USD", interval: .init(unit: .year)), provider: .lemonsqueezy, variantID: "3")
        book.set(RecurringPrice(amount: 19_999, currency: "USD", interval: .init(unit: .year)), provider: .lemonsqueezy, variantID: "4")
        return book
    }()

    func event(_ kind: BillingEventKind, _ at: String, variant: String, key: String) -> SubscriptionFold.LoggedEvent {
        var e = BillingEvent(kind: kind, provider: .lemonsqueezy, providerEventName: "x", entityKey: "lemonsqueezy:1")
        e.subscriptionID = "1"
        e.status = "active"
        e.variantID = variant
        e.orderingTimestamp = ISO8601DateFormatter().date(from: at)
        return .init(dedupKey: key, event: e)
    }

    func row(_ events: [SubscriptionFold.LoggedEvent]) throws -> RevenueReportRow {
        let history = SubscriptionRevenueHistory(provider: .lemonsqueezy, subscriptionID: "1", events: events, prices: Self.book)
        let period = ReportPeriod(
            from: ISO8601DateFormatter().date(from: "2026-11-01T00:00:00Z")!, to: ISO8601DateFormatter().date(from: "2026-12-01T00:00:00Z")!,
            granularity: .month)
        return try #require(RevenueReport.build(histories: [history], returns: [], period: period, asOf: period.to).first)
    }

    @Test func monthlyToAnnualIsContractionNotChurnAndNew() throws {
        // 4.99 a month → 49.99 a year (4.17 a month): cheaper a month.
        let row = try row([
            event(.subscriptionCreated, "2026-11-02T10:00:00Z", variant: "2", key: "a"),
            // The plan-change command's observed state, then the provider's webhook saying the same.
            event(.subscriptionObserved, "2026-11-10T10:00:00Z", variant: "3", key: "command:c1"),
            event(.subscriptionUpdated, "2026-11-10T10:00:01Z", variant: "3", key: "b"),
        ])
        #expect(row.newMRR == 499 && row.newSubscriptions == 1)
        #expect(row.contractionMRR == 499 - 417 && row.expansionMRR == 0)
        #expect(row.churnedMRR == 0 && row.churnedSubscriptions == 0)
        #expect(row.mrrEnd == 417 && row.activeSubscribersEnd == 1)
    }

    @Test func anUpgradeIsExpansion() throws {
        let row = try row([
            event(.subscriptionCreated, "2026-11-02T10:00:00Z", variant: "3", key: "a"),
            event(.subscriptionObserved, "2026-11-10T10:00:00Z", variant: "4", key: "command:c1"),
        ])
        #expect(row.expansionMRR == 1667 - 417 && row.contractionMRR == 0 && row.churnedMRR == 0 && row.newSubscriptions == 1)
    }

    /// A Paystack change at period end: the monthly subscription stops renewing
    /// and a new annual one starts at the period end (docs/plan-changes.md).
    @Test func aPaystackChangeAtPeriodEndIsOneMovementWhenTheSuccessorStarts() throws {
        var book = PriceBook()
        book.set(RecurringPrice(amount: 5000, currency: "NGN", interval: .init(unit: .month)), provider: .paystack, variantID: "PLN_m")
        book.set(RecurringPrice(amount: 48_000, currency: "NGN", interval: .init(unit: .year)), provider: .paystack, variantID: "PLN_y")
        func at(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }
        func event(
            _ kind: BillingEventKind, _ time: String, subscription: String, variant: String, status: String, key: String
        )
            -> SubscriptionFold.LoggedEvent
        {
            var e = BillingEvent(kind: kind, provider: .paystack, providerEventName: "x", entityKey: "paystack:\(subscription)")
            e.subscriptionID = subscription
            e.status = status
            e.variantID = variant
            e.orderingTimestamp = at(time)
            return .init(dedupKey: key, event: e)
        }
        var ending = event(
            .subscriptionObserved, "2026-11-10T10:00:00Z", subscription: "SUB_1", variant: "PLN_m", status: "non-renewing", key: "command:c1")
        ending.event.cancelled = true
        ending.event.endsAt = at("2026-12-02T10:00:00Z")
        let old = SubscriptionRevenueHistory(
            provider: .paystack, subscriptionID: "SUB_1",
            events: [
                event(.subscriptionCreated, "2026-11-02T10:00:00Z", subscription: "SUB_1", variant: "PLN_m", status: "active", key: "a"), ending,
            ],
            prices: book)
        var starting = event(
            .subscriptionObserved, "2026-11-10T10:00:00Z", subscription: "SUB_2", variant: "PLN_y", status: "active", key: "command:c1:successor")
        starting.event.startsAt = at("2026-12-02T10:00:00Z")
        starting.event.replacesSubscriptionID = "SUB_1"
        let new = SubscriptionRevenueHistory(provider: .paystack, subscriptionID: "SUB_2", events: [starting], prices: book)

        let joined = old.continued(by: new, from: at("2026-12-02T10:00:00Z"))
        let period = ReportPeriod(from: at("2026-11-01T00:00:00Z"), to: at("2027-01-01T00:00:00Z"), granularity: .month)
        let rows = RevenueReport.build(histories: [joined], returns: [], period: period, asOf: period.to)
        try #require(rows.count == 2)
        #expect(rows[0].newMRR == 5000 && rows[0].newSubscriptions == 1 && rows[0].mrrEnd == 5000, "November: the monthly plan only")
        #expect(rows[1].contractionMRR == 5000 - 4000 && rows[1].churnedMRR == 0 && rows[1].newMRR == 0 && rows[1].newSubscriptions == 0)
        #expect(rows[1].mrrEnd == 4000 && rows[1].activeSubscribersEnd == 1)

        // Alone, the two would be November's second new subscription and December's churn.
        let apart = RevenueReport.build(histories: [old, new], returns: [], period: period, asOf: period.to)
        #expect(apart.first?.newSubscriptions == 2 && apart.last?.churnedSubscriptions == 1, "the join is what makes it one movement")
    }

    /// The old subscription ends before its date (the sandbox expires it at
    /// once, after charging the new one): the switch is then.
    @Test func theSwitchIsWhenTheReplacedSubscriptionStopsPaying() throws {
        var book = PriceBook()
        book.set(RecurringPrice(amount: 5000, currency: "NGN", interval: .init(unit: .month)), provider: .paystack, variantID: "PLN_m")
        book.set(RecurringPrice(amount: 48_000, currency: "NGN", interval: .init(unit: .year)), provider: .paystack, variantID: "PLN_y")
        func at(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }
        func event(_ kind: BillingEventKind, _ time: String, subscription: String, variant: String, status: String) -> SubscriptionFold.LoggedEvent {
            var e = BillingEvent(kind: kind, provider: .paystack, providerEventName: "x", entityKey: "paystack:\(subscription)")
            e.subscriptionID = subscription
            e.status = status
            e.variantID = variant
            e.orderingTimestamp = at(time)
            return .init(dedupKey: "\(subscription)-\(time)", event: e)
        }
        let old = SubscriptionRevenueHistory(
            provider: .paystack, subscriptionID: "SUB_1",
            events: [
                event(.subscriptionCreated, "2026-11-02T10:00:00Z", subscription: "SUB_1", variant: "PLN_m", status: "active"),
                event(.subscriptionDisabled, "2026-11-10T10:05:00Z", subscription: "SUB_1", variant: "PLN_m", status: "complete"),
            ], prices: book)
        let new = SubscriptionRevenueHistory(
            provider: .paystack, subscriptionID: "SUB_2",
            events: [
                event(.subscriptionObserved, "2026-11-10T10:00:00Z", subscription: "SUB_2", variant: "PLN_y", status: "active"),
                event(.paymentSucceeded, "2026-11-10T10:04:00Z", subscription: "SUB_2", variant: "PLN_y", status: "active"),
            ], prices: book)
        let joined = old.continued(by: new, from: at("2026-12-02T10:00:00Z"))
        #expect(joined.points.map(\.mrr) == [5000, 4000], "\(joined.points)")
        #expect(joined.points.last?.at == at("2026-11-10T10:05:00Z"))
    }

    /// A reconciler snapshot fetched in the same second as a change, before
    /// it: its fetch started 0.4 s after the second the provider's event
    /// names (Stripe's whole-second `created`), yet it shows the old plan. It
    /// must not put the old plan back between the change and the next event
    /// (once seen end to end as contraction 164 and expansion 82 where one
    /// contraction of 82 happened), in any arrival order.
    @Test func aSnapshotFromTheSecondOfAChangeDoesNotUndoIt() throws {
        var snapshot = event(.subscriptionObserved, "2026-11-10T10:00:00Z", variant: "2", key: "snapshot:s1")
        snapshot.event.providerEventName = ProviderSnapshot.eventNamePrefix + "subscription"
        snapshot.event.orderingTimestamp = snapshot.event.orderingTimestamp?.addingTimeInterval(0.4)
        let events = [
            event(.subscriptionCreated, "2026-11-02T10:00:00Z", variant: "2", key: "a"),
            event(.subscriptionUpdated, "2026-11-10T10:00:00Z", variant: "3", key: "b"),
            snapshot,
            event(.paymentSucceeded, "2026-11-10T10:00:03Z", variant: "3", key: "c"),
        ]
        for order in [events, events.reversed(), [events[2], events[0], events[3], events[1]]] {
            let row = try row(order)
            #expect(row.contractionMRR == 499 - 417 && row.expansionMRR == 0, "\(row)")
            #expect(row.mrrEnd == 417 && row.churnedMRR == 0)
            let state = SubscriptionFold.fold(provider: .lemonsqueezy, subscriptionID: "1", events: Array(order.prefix(3)))
            #expect(state.variantID == "3" || !order.prefix(3).contains { $0.dedupKey == "b" })
        }
        // A snapshot of a later second still counts after the provider's events before it.
        snapshot.event.orderingTimestamp = snapshot.event.orderingTimestamp?.addingTimeInterval(1)
        let later = SubscriptionFold.fold(provider: .lemonsqueezy, subscriptionID: "1", events: Array(events.prefix(2)) + [snapshot])
        #expect(later.variantID == "2")
    }

    /// Seen end to end (Stripe, a change at the period end requested in the
    /// second of the renewal): the request's answer at .109 (still the
    /// monthly plan: the change waits) is from before the renewal Stripe
    /// stamps with that whole second. One contraction, in any arrival order.
    @Test func aCommandAnsweredInTheSecondOfARenewalDoesNotUndoIt() throws {
        func stripe(_ kind: BillingEventKind, _ at: TimeInterval, _ variant: String, name: String, key: String) -> SubscriptionFold.LoggedEvent {
            var e = event(kind, "2026-11-10T10:00:00Z", variant: variant, key: key)
            e.event.providerEventName = name
            e.event.orderingTimestamp = e.event.orderingTimestamp?.addingTimeInterval(at)
            return e
        }
        let events = [
            stripe(.subscriptionCreated, 0, "2", name: "customer.subscription.created", key: "a"),
            stripe(.paymentSucceeded, 1, "3", name: "invoice.paid", key: "b"),
            stripe(.subscriptionUpdated, 1, "3", name: "customer.subscription.updated", key: "c"),
            stripe(.subscriptionObserved, 1.109, "2", name: BillingEvent.observationNamePrefix + "plan_change_requested", key: "command:d"),
            stripe(.subscriptionObserved, 2.627, "3", name: ProviderSnapshot.eventNamePrefix + "subscription", key: "snapshot:e"),
        ]
        for order in [events, events.reversed(), [events[3], events[1], events[0], events[4], events[2]]] {
            let row = try row(order)
            #expect(row.contractionMRR == 499 - 417 && row.expansionMRR == 0 && row.mrrEnd == 417, "\(row)")
        }
        // Two observations of one second keep their milliseconds' order.
        let first = stripe(.subscriptionObserved, 5.2, "3", name: BillingEvent.observationNamePrefix + "resume", key: "command:z")
        let second = stripe(.subscriptionObserved, 5.7, "4", name: BillingEvent.observationNamePrefix + "plan_change", key: "command:a")
        #expect(SubscriptionFold.fold(provider: .lemonsqueezy, subscriptionID: "1", events: [second, first]).variantID == "4")
    }

    /// A purchase and a change of plan in one second (Lemon Squeezy's times
    /// are whole seconds; the change's answer came at .9): one point, the
    /// new plan bought, and the history's points stay in time order.
    @Test func aChangeInThePurchasesSecondIsTheNewPlanBought() throws {
        var answer = event(.subscriptionObserved, "2026-11-10T10:00:00Z", variant: "3", key: "command:c")
        answer.event.providerEventName = BillingEvent.observationNamePrefix + "plan_change_requested"
        answer.event.orderingTimestamp = answer.event.orderingTimestamp?.addingTimeInterval(0.9)
        let events = [
            event(.subscriptionCreated, "2026-11-10T10:00:00Z", variant: "2", key: "a"), answer,
            event(.subscriptionUpdated, "2026-11-10T10:00:00Z", variant: "3", key: "b"),
        ]
        for order in [events, events.reversed()] {
            let row = try row(order)
            #expect(row.newMRR == 417 && row.contractionMRR == 0 && row.expansionMRR == 0 && row.mrrEnd == 417, "\(row)")
            let history = SubscriptionRevenueHistory(provider: .lemonsqueezy, subscriptionID: "1", events: order, prices: Self.book)
            #expect(history.points.count == 1 && history.points == history.points.sorted { $0.at < $1.at })
        }
    }
}
