import Foundation
import BillingModel

/// One subscription's revenue over time: the fold's states, step by step.
///
/// Each logged event is applied in the fold's total order
/// (``SubscriptionFold``, the same rules that build the projection), and the
/// state after it becomes a point; a subscription that is to end at
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
        for (index, logged) in ordered.enumerated() {
            SubscriptionFold.apply(logged, payments: payments, to: &state)
            if let price = logged.event.recurringPrice { stated = (price, state.variantID) }
            if let named = logged.event.currency { currency = named.uppercased() }
            guard state.status != "unknown" else { continue }
            // A stated price holds while the variant it was stated for does.
            let price =
                stated.flatMap { $0.variantID == state.variantID ? $0.price : nil }
                ?? prices.price(provider: provider, variantID: state.variantID)
            let at = logged.event.orderingTimestamp ?? .distantPast
            let failed = logged.event.kind == .paymentFailed ? 1 : 0
            points.append(Self.point(state, price: price, at: at, failedPayments: failed))
            let next = ordered.dropFirst(index + 1).first.map { $0.event.orderingTimestamp ?? .distantPast }
            if let end = state.endsAt, RevenueStatus.endsAtPeriodEnd(provider.phase(of: state.status)), end > at, end < next ?? .distantFuture {
                points.append(Self.point(state, price: price, at: end, failedPayments: 0))
            }
        }
        self.points = points
        self.currency = points.last(where: { $0.price != nil })?.price?.currency ?? currency ?? "unknown"
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
