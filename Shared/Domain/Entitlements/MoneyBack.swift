import Foundation
import BillingModel

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
/// reference (Paystack, whose refunds each name their own amount, so they
/// add up), or the refund's own invoice or order (Lemon Squeezy, whose
/// refund objects carry their total, the running refunded total and their
/// creation time).
/// An unknown amount counts as a full refund; an unknown payment time as
/// the current period.
enum MoneyBack {
    /// Lemon Squeezy stamps an invoice's `created_at` a little before the
    /// payment's own time; a payment this close to the newest one is the
    /// newest one.
    static let olderPeriodMargin: TimeInterval = 3600

    /// The payments a fold knows, by Paystack transaction reference, with
    /// the money given back for each.
    struct Payments: Sendable {
        struct Payment: Sendable {
            var paidAt: Date?
            var amount: Int64?
            /// Paystack refunds (each `refund.processed` names its own
            /// amount) and disputes the buyer won, in the fold's order.
            var returned: [(position: SubscriptionFold.Position, amount: Int64?)] = []
        }

        private var byReference: [String: Payment] = [:]

        init(_ events: [SubscriptionFold.LoggedEvent]) {
            for logged in events {
                let event = logged.event
                guard let reference = event.transactionReference else { continue }
                var payment = byReference[reference] ?? Payment()
                switch event.kind {
                case .paymentSucceeded, .paymentRecovered, .invoiceCreated, .invoiceUpdated:
                    payment.paidAt = payment.paidAt ?? event.paidAt
                    payment.amount = payment.amount ?? event.amount
                case .refundProcessed:
                    payment.returned.append((SubscriptionFold.position(logged), event.refundedAmount))
                case .disputeResolved where event.disputeResolution == BillingEvent.disputeReturnedTheMoney:
                    payment.returned.append((SubscriptionFold.position(logged), event.refundedAmount ?? event.amount))
                default:
                    continue
                }
                byReference[reference] = payment
            }
        }

        subscript(reference: String?) -> Payment? { reference.flatMap { byReference[$0] } }

        /// Everything returned for `reference` up to and including `position`;
        /// nil when one of those returns named no amount (a whole refund).
        func returned(_ reference: String?, upTo position: SubscriptionFold.Position) -> Int64?? {
            guard let payment = self[reference] else { return .none }
            var total: Int64 = 0
            for entry in payment.returned where entry.position <= position {
                guard let amount = entry.amount else { return .some(nil) }
                total += amount
            }
            return .some(total)
        }
    }

    static func apply(_ logged: SubscriptionFold.LoggedEvent, payments: Payments, to state: inout SubscriptionState) {
        let event = logged.event
        let at = event.orderingTimestamp ?? event.createdAt
        switch event.kind {
        case .paymentRefunded, .orderRefunded, .refundProcessed:
            refund(logged, payments: payments, at: at, to: &state)
        case .disputeCreated, .disputeReminder:
            state.disputeOpenedAt = state.disputeOpenedAt ?? at
        case .disputeResolved:
            state.disputeOpenedAt = nil
            if event.disputeResolution == BillingEvent.disputeReturnedTheMoney { refund(logged, payments: payments, at: at, to: &state) }
        default:
            break
        }
    }

    private static func refund(_ logged: SubscriptionFold.LoggedEvent, payments: Payments, at: Date?, to state: inout SubscriptionState) {
        let event = logged.event
        let payment = payments[event.transactionReference]
        // A refund that restates its order (Lemon Squeezy) is the order: paid
        // when it was created, its amount and running refunded total on it.
        // Otherwise the refund names its payment (Paystack's transaction), and
        // each refund's own amount adds up.
        let restatesOrder = event.provider.traits.refundsRestateTheOrder
        let paidAt: Date? = restatesOrder ? event.createdAt : payment?.paidAt ?? event.paidAt
        if let paidAt, let newest = state.latestPurchaseAt, paidAt < newest.addingTimeInterval(-olderPeriodMargin) { return }
        let refunded: Int64? =
            restatesOrder
            ? event.refundedAmount : payments.returned(event.transactionReference, upTo: SubscriptionFold.position(logged)) ?? event.refundedAmount
        let paid = restatesOrder ? event.amount : payment?.amount ?? event.amount
        if let refunded, let paid, refunded < paid {
            state.partiallyRefundedAt = state.partiallyRefundedAt ?? at
        } else {
            state.refundedAt = state.refundedAt ?? at
        }
    }
}
