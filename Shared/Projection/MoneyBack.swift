import Foundation
import Models

/// How refunds and disputes of a subscription's payments enter its state
/// (part of ``SubscriptionFold``; pure). The state records facts; whether
/// they end access is ``AccessRules``' call, under ``AccessPolicy``.
///
/// - A refund (Lemon Squeezy `subscription_payment_refunded`, or
///   `order_refunded` of the subscription's first order; Paystack
///   `refund.processed`, or a transaction fetched as `reversed`) of the
///   **current** period's payment sets ``SubscriptionState/refundedAt``
///   when it returns the whole amount, ``SubscriptionState/partiallyRefundedAt``
///   otherwise. A refund of an older period's payment (one made more than
///   ``olderPeriodMargin`` before the newest successful payment) is logged
///   and changes nothing: the period it paid for was used, and the current
///   one is paid.
/// - A dispute (Paystack `charge.dispute.create`/`remind`) sets
///   ``SubscriptionState/disputeOpenedAt``; `charge.dispute.resolve` clears
///   it, and when it was resolved `merchant-accepted` (the buyer got the
///   money back) it counts as a refund of that payment, by the rule above.
///   Resolved `declined`, the merchant kept the money: nothing else changes.
/// - A later successful payment clears both refund facts (the fold's
///   lifecycle step): a new period was paid.
///
/// Which payment a refund or dispute names is found through
/// ``Payments``: the subscription's own charges and invoices by transaction
/// reference (Paystack), or the refund's own invoice or order (Lemon
/// Squeezy, whose refund objects carry their total and creation time).
/// An unknown amount counts as a full refund; an unknown payment time as
/// the current period.
enum MoneyBack {
    /// Lemon Squeezy stamps an invoice's `created_at` a little before the
    /// payment's own time; a payment this close to the newest one is the
    /// newest one.
    static let olderPeriodMargin: TimeInterval = 3600

    /// The payments a fold knows, by Paystack transaction reference.
    struct Payments: Sendable {
        struct Payment: Sendable {
            var paidAt: Date?
            var amount: Int64?
        }

        private var byReference: [String: Payment] = [:]

        init(_ events: [BillingEvent]) {
            for event in events {
                guard let reference = event.transactionReference else { continue }
                switch event.kind {
                case .paymentSucceeded, .paymentRecovered, .invoiceCreated, .invoiceUpdated:
                    var payment = byReference[reference] ?? Payment()
                    payment.paidAt = payment.paidAt ?? event.paidAt
                    payment.amount = payment.amount ?? event.amount
                    byReference[reference] = payment
                default:
                    continue
                }
            }
        }

        subscript(reference: String?) -> Payment? { reference.flatMap { byReference[$0] } }
    }

    static func apply(_ event: BillingEvent, payments: Payments, to state: inout SubscriptionState) {
        let at = event.orderingTimestamp ?? event.createdAt
        switch event.kind {
        case .paymentRefunded, .orderRefunded, .refundProcessed:
            refund(event, payments: payments, at: at, to: &state)
        case .disputeCreated, .disputeReminder:
            state.disputeOpenedAt = state.disputeOpenedAt ?? at
        case .disputeResolved:
            state.disputeOpenedAt = nil
            if event.disputeResolution == "merchant-accepted" { refund(event, payments: payments, at: at, to: &state) }
        default:
            break
        }
    }

    private static func refund(_ event: BillingEvent, payments: Payments, at: Date?, to state: inout SubscriptionState) {
        let payment = payments[event.transactionReference]
        let paidAt: Date? =
            switch event.provider {
            case .lemonsqueezy: event.createdAt
            case .paystack: payment?.paidAt ?? event.paidAt
            }
        if let paidAt, let newest = state.latestPurchaseAt, paidAt < newest.addingTimeInterval(-olderPeriodMargin) { return }
        let paid = event.provider == .lemonsqueezy ? event.amount : payment?.amount ?? event.amount
        if let refunded = event.refundedAmount, let paid, refunded < paid {
            state.partiallyRefundedAt = state.partiallyRefundedAt ?? at
        } else {
            state.refundedAt = state.refundedAt ?? at
        }
    }
}
