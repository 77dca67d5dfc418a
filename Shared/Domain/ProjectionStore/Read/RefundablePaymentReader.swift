import BillingModel
import Postgres

/// Reads what a refund request is checked against (``RefundablePayment``),
/// from `orders` and `payments` (the checkout's role reads `payments` from
/// projection migration 18 on). Only reads; the projector is the only writer.
public struct RefundablePaymentReader: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// The payment a refund of the purchase would give back, if the purchase
    /// belongs to `appUserID` (its owner in the projection; no email fallback,
    /// a server key has none); nil when it does not exist or is someone else's.
    ///
    /// An order is its own payment. A subscription's is its latest paid one
    /// (`payments` of kind `paymentSucceeded`/`paymentRecovered`; one whose
    /// latest event is `paymentRefunded` counts as refunded already): those
    /// naming the subscription, and, for a provider whose charges name none,
    /// those linked to it by customer, plan and card.
    /// - Throws: ``PostgresError`` when the database cannot be read.
    public func refundablePayment(
        provider: Provider, type: PurchaseType, id: String, ownedBy appUserID: String
    ) async throws -> RefundablePayment? {
        switch type {
        case .order:
            let rows = try await pool.query(
                """
                SELECT amount, COALESCE(refunded_amount, 0) AS refunded, currency, status = 'refunded' AS refunded_in_full
                FROM orders
                WHERE provider = \(provider.rawValue) AND order_id = \(id) AND app_user_id = \(appUserID)
                """)
            guard let row = rows.first else { return nil }
            let (paid, refunded, currency, full) = try row.decode((Int64?, Int64, String?, Bool).self)
            return RefundablePayment(
                provider: provider, purchaseType: .order, purchaseID: id, paymentID: id, paid: paid, refunded: refunded, currency: currency,
                alreadyRefunded: full)
        case .subscription:
            // A provider whose charges name no subscription (Paystack: the
            // subscription is linked to its charges by customer, plan and card)
            // has them found by the projector's own rule: the subscription's
            // customer, plan and card, and no other subscription with all three.
            let cardLinked = provider.traits.chargesLinkToSubscriptionsByCard
            let rows = try await pool.query(
                """
                SELECT p.payment_id, p.amount, p.currency, p.kind = 'paymentRefunded' AS refunded
                FROM subscriptions AS s
                LEFT JOIN LATERAL (
                    SELECT payment_id, amount, currency, kind, occurred_at FROM payments
                    WHERE provider = s.provider AND subscription_id = s.subscription_id
                      AND kind IN ('paymentSucceeded', 'paymentRecovered', 'paymentRefunded')
                    UNION ALL
                    SELECT c.payment_id, c.amount, c.currency, c.kind, c.occurred_at
                    FROM billing_events AS e JOIN payments AS c ON c.provider = e.provider AND c.payment_id = e.order_id
                    WHERE \(cardLinked)::boolean AND e.provider = s.provider AND e.subscription_id IS NULL
                      AND e.kind IN ('paymentSucceeded', 'paymentRecovered')
                      AND e.customer_id = s.customer_id AND e.plan_code = s.variant_id AND e.authorization_code = s.authorization_code
                      AND c.subscription_id IS NULL AND c.kind IN ('paymentSucceeded', 'paymentRecovered', 'paymentRefunded')
                      AND NOT EXISTS (
                          SELECT 1 FROM subscriptions AS x
                          WHERE x.provider = s.provider AND x.subscription_id <> s.subscription_id AND x.customer_id = s.customer_id
                            AND x.variant_id = s.variant_id AND x.authorization_code = s.authorization_code)
                    ORDER BY occurred_at DESC NULLS LAST, payment_id DESC
                    LIMIT 1) AS p ON true
                WHERE s.provider = \(provider.rawValue) AND s.subscription_id = \(id) AND s.app_user_id = \(appUserID)
                """)
            guard let row = rows.first else { return nil }
            let (paymentID, paid, currency, refunded) = try row.decode((String?, Int64?, String?, Bool?).self)
            return RefundablePayment(
                provider: provider, purchaseType: .subscription, purchaseID: id, paymentID: paymentID, paid: paid, refunded: 0,
                currency: currency, alreadyRefunded: refunded ?? false)
        }
    }
}
