import Foundation
import BillingModel

/// Money that went back to buyers, read from the log: refunds and disputes
/// of subscriptions and one-time orders alike (docs/revenue.md).
public struct MoneyReturn: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable { case refund, dispute }

    public var kind: Kind
    public var provider: Provider
    public var currency: String
    public var at: Date
    /// Minor units given back by this event (a dispute: the disputed amount, when known).
    public var amount: Int64

    /// The refunds and opened disputes among `events` (any subscription or none),
    /// in the fold's order. Lemon Squeezy's `refunded_amount` is cumulative
    /// per order or invoice, so each event counts what it adds; Paystack's
    /// `refund.processed` names its own amount. A dispute counts once, when opened.
    public static func read(_ events: [SubscriptionFold.LoggedEvent]) -> [MoneyReturn] {
        var refundedSoFar: [String: Int64] = [:]
        var result: [MoneyReturn] = []
        for logged in events.sorted(by: SubscriptionFold.precedes) {
            let event = logged.event
            let at = event.orderingTimestamp ?? .distantPast
            let currency = event.currency?.uppercased() ?? "unknown"
            switch event.kind {
            case .orderRefunded, .paymentRefunded:
                guard let total = event.refundedAmount,
                    let payment = event.kind == .orderRefunded ? event.orderID.map({ "order:\($0)" }) : event.invoiceID.map({ "invoice:\($0)" })
                else { continue }
                let added = total - refundedSoFar[payment, default: 0]
                refundedSoFar[payment] = max(total, refundedSoFar[payment, default: 0])
                if added > 0 { result.append(MoneyReturn(kind: .refund, provider: event.provider, currency: currency, at: at, amount: added)) }
            case .refundProcessed:
                result.append(MoneyReturn(kind: .refund, provider: event.provider, currency: currency, at: at, amount: event.refundedAmount ?? 0))
            case .disputeCreated:
                result.append(MoneyReturn(kind: .dispute, provider: event.provider, currency: currency, at: at, amount: event.amount ?? 0))
            default:
                continue
            }
        }
        return result
    }
}
