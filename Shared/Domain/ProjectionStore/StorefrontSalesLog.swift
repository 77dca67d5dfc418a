import Foundation
import Entitlements
import Postgres

/// What `storefront report --storefronts` reads (docs/app-store.md, "What it
/// costs"): the money charged and given back through checkouts that came
/// from an App Store storefront (`checkouts.app_store_storefront`, projection
/// migration 20), per storefront and currency, in a period.
///
/// A checkout's purchase is linked as the campaign figures link it
/// (``CampaignLog``): a one-time order names its checkout; a subscription is
/// named by an event of its checkout, or (Paystack) shares the checkout's
/// charge's card authorization and customer; a subscription linked to
/// several checkouts counts under its first one's storefront. Its charges
/// are its `payments` rows. The projection keeps a payment's latest state,
/// so a refunded payment is dated by its refund, charged and refunded in
/// full there; an order's partial refunds are their running total.
public enum StorefrontSalesLog {
    /// Counts and sums of one storefront and currency (minor units).
    public struct Sales: Sendable, Hashable {
        public var storefront: String
        public var currency: String
        /// One-time orders and first subscription payments in the period.
        public var purchases: Int
        /// Later subscription payments in the period.
        public var renewals: Int
        public var charged: Int64
        public var refunds: Int
        public var refunded: Int64

        public init(storefront: String, currency: String, purchases: Int, renewals: Int, charged: Int64, refunds: Int, refunded: Int64) {
            self.storefront = storefront
            self.currency = currency
            self.purchases = purchases
            self.renewals = renewals
            self.charged = charged
            self.refunds = refunds
            self.refunded = refunded
        }
    }

    /// Every storefront and currency with a charge or refund in `period`
    /// (up to `asOf`), ordered by storefront then currency.
    /// - Throws: ``PostgresError``.
    public static func read(_ period: ReportPeriod, pool: PostgresPool, asOf: Date) async throws -> [Sales] {
        let end = min(asOf, period.to)
        return try await pool.query(
            """
            WITH linked_orders AS (
                SELECT DISTINCT ON (o.provider, o.order_id) c.app_store_storefront AS storefront, o.amount, upper(o.currency) AS currency,
                    o.paid_at, o.status, o.refunded_amount, COALESCE(o.refunded_at, o.partially_refunded_at, o.paid_at) AS refunded_at
                FROM checkouts AS c
                JOIN orders AS o ON o.provider = c.provider AND o.checkout_id = c.checkout_id
                WHERE c.app_store_storefront IS NOT NULL AND c.is_subscription IS NOT TRUE
                    AND o.paid_at IS NOT NULL AND o.amount IS NOT NULL AND o.currency IS NOT NULL
                ORDER BY o.provider, o.order_id, c.created_at, c.checkout_id),
            links AS (
                SELECT c.app_store_storefront AS storefront, c.created_at, c.checkout_id, e.provider, e.subscription_id
                FROM checkouts AS c
                JOIN billing_events AS e ON e.checkout_id = c.checkout_id AND e.provider = c.provider
                WHERE c.app_store_storefront IS NOT NULL AND e.subscription_id IS NOT NULL
                UNION
                SELECT c.app_store_storefront, c.created_at, c.checkout_id, s.provider, s.subscription_id
                FROM checkouts AS c
                JOIN billing_events AS e ON e.checkout_id = c.checkout_id AND e.provider = c.provider
                JOIN subscriptions AS s ON s.provider = c.provider AND s.authorization_code = e.authorization_code
                    AND s.customer_id = e.customer_id
                WHERE c.app_store_storefront IS NOT NULL AND e.authorization_code IS NOT NULL),
            linked_subscriptions AS (
                SELECT DISTINCT ON (provider, subscription_id) storefront, provider, subscription_id FROM links
                ORDER BY provider, subscription_id, created_at, checkout_id),
            charges AS (
                SELECT t.storefront, p.kind, p.amount, upper(p.currency) AS currency, p.occurred_at,
                    row_number() OVER (PARTITION BY p.provider, p.subscription_id ORDER BY p.occurred_at, p.payment_id) AS nth
                FROM linked_subscriptions AS t
                JOIN payments AS p ON p.provider = t.provider AND p.subscription_id = t.subscription_id
                WHERE p.kind IN ('paymentSucceeded', 'paymentRecovered', 'paymentRefunded')
                    AND p.amount IS NOT NULL AND p.currency IS NOT NULL AND p.occurred_at IS NOT NULL),
            moves AS (
                SELECT storefront, currency, 'purchase' AS move, amount FROM linked_orders
                    WHERE paid_at >= \(period.from) AND paid_at < \(end)
                UNION ALL
                SELECT storefront, currency, 'refund', COALESCE(NULLIF(refunded_amount, 0), amount) FROM linked_orders
                    WHERE (refunded_amount > 0 OR status = 'refunded') AND refunded_at >= \(period.from) AND refunded_at < \(end)
                UNION ALL
                SELECT storefront, currency, CASE WHEN nth = 1 THEN 'purchase' ELSE 'renewal' END, amount FROM charges
                    WHERE occurred_at >= \(period.from) AND occurred_at < \(end)
                UNION ALL
                SELECT storefront, currency, 'refund', amount FROM charges
                    WHERE kind = 'paymentRefunded' AND occurred_at >= \(period.from) AND occurred_at < \(end))
            SELECT storefront, currency,
                count(*) FILTER (WHERE move = 'purchase'), count(*) FILTER (WHERE move = 'renewal'),
                COALESCE(sum(amount) FILTER (WHERE move <> 'refund'), 0)::bigint,
                count(*) FILTER (WHERE move = 'refund'), COALESCE(sum(amount) FILTER (WHERE move = 'refund'), 0)::bigint
            FROM moves GROUP BY storefront, currency ORDER BY storefront, currency
            """
        ).map { row in
            let (storefront, currency, purchases, renewals, charged, refunds, refunded) = try row.decode(
                (String, String, Int64, Int64, Int64, Int64, Int64).self)
            return Sales(
                storefront: storefront, currency: currency, purchases: Int(purchases), renewals: Int(renewals), charged: charged,
                refunds: Int(refunds), refunded: refunded)
        }
    }
}
