import Foundation
import BillingModel

/// One subscription's revenue over time: the fold's states, step by step.
///
/// Each logged event is applied in the fold's total order
/// (``SubscriptionFold``, the same rules that build the projection), and the
/// state after the last event of each instant (its fold position's time:
/// for whole-second providers, Storefront's observations count at their
/// second) becomes a point; a subscription that is to end at
/// ``SubscriptionState/endsAt`` (cancelled, non-renewing) gets a point there
/// when no event comes first, so revenue stops on time even if the
/// provider's final event is late or never sent.
public struct SubscriptionRevenueHistory: Sendable {
    public var provider: Provider
    public var subscriptionID: String
    /// In time order; empty when no event said anything about the subscription.
    public var points: [RevenuePoint]
    /// The currency the subscription is grouped under: its price's, else the
    /// newest one an event named, else `unknown`.
    public var currency: String

    public init(provider: Provider, subscriptionID: String, events: [SubscriptionFold.LoggedEvent], prices: PriceBook) {
        self.provider = provider
        self.subscriptionID = subscriptionID
        var state = SubscriptionState(provider: provider, subscriptionID: subscriptionID)
        let payments = MoneyBack.Payments(events)
        var stated: (price: RecurringPrice, variantID: String?)?
        var currency: String?
        var points: [RevenuePoint] = []
        let ordered = events.sorted(by: SubscriptionFold.precedes).filter { !$0.event.kind.isUnknown }
        // Each event's instant, once: a point's and the next event's.
        let instants = ordered.map { SubscriptionFold.position($0).at }
        for (index, logged) in ordered.enumerated() {
            SubscriptionFold.apply(logged, payments: payments, to: &state)
            if let price = logged.event.recurringPrice { stated = (price, state.variantID) }
            if let named = logged.event.currency { currency = named.uppercased() }
            guard state.status != "unknown" else { continue }
            // A stated price holds while the variant it was stated for does.
            let price =
                stated.flatMap { $0.variantID == state.variantID ? $0.price : nil }
                ?? prices.price(provider: provider, variantID: state.variantID)
            let at = instants[index]
            var point = Self.point(state, price: price, at: at, failedPayments: logged.event.kind == .paymentFailed ? 1 : 0)
            // Events of one instant are one point, the state after the last:
            // where a provider's times are whole seconds, what happened
            // within a second has no order to show (a purchase and a change
            // of plan in the same second are the new plan bought).
            if let last = points.last, last.at == at {
                point.failedPayments += last.failedPayments
                points.removeLast()
            }
            points.append(point)
            let next = instants.dropFirst(index + 1).first
            if let end = state.endsAt, RevenueStatus.endsAtPeriodEnd(provider.phase(of: state.status)), end > at, end < next ?? .distantFuture {
                points.append(Self.point(state, price: price, at: end, failedPayments: 0))
            }
        }
        self.points = points
        self.currency = points.last(where: { $0.price != nil })?.price?.currency ?? currency ?? "unknown"
    }

    /// This subscription's history continued by `successor`'s, for a
    /// subscription that replaced this one from `start` (a Paystack plan
    /// change at the period end ends one subscription and starts another).
    /// The switch is when this one stops paying after the successor exists
    /// (its period end, or an earlier expiry), at the latest `start`: before
    /// it the points are this one's, at it the successor's standing then,
    /// after it the successor's. So the change is one movement of MRR
    /// (expansion or contraction), not this one's churn and the successor's
    /// new MRR, and the successor is not counted beside this one.
    public func continued(by successor: SubscriptionRevenueHistory, from start: Date) -> SubscriptionRevenueHistory {
        let linked = successor.points.first?.at ?? start
        let switchAt = min(points.first { $0.at >= linked && !$0.paying }?.at ?? start, start)
        var joined = self
        joined.points = points.filter { $0.at < switchAt }
        if var standing = successor.standing(at: switchAt) {
            standing.at = switchAt
            standing.failedPayments = 0
            joined.points.append(standing)
        }
        joined.points += successor.points.filter { $0.at > switchAt }
        if successor.currency != "unknown" { joined.currency = successor.currency }
        return joined
    }

    /// The standing at `date` (the newest point at or before it); nil before the first.
    public func standing(at date: Date) -> RevenuePoint? { points.last { $0.at <= date } }

    static func point(_ state: SubscriptionState, price: RecurringPrice?, at: Date, failedPayments: Int) -> RevenuePoint {
        let phase = state.provider.phase(of: state.status)
        let ended = RevenueStatus.endsAtPeriodEnd(phase) && (state.endsAt.map { $0 <= at } ?? false)
        return RevenuePoint(
            at: at, paying: RevenueStatus.isPaying(phase) && !ended, trialing: phase == .trialing,
            inGrace: RevenueStatus.isInGrace(phase) && !ended, price: price, failedPayments: failedPayments)
    }
}
