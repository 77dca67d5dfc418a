import Postgres

extension ProjectionSchema {
    /// Migration 23: what the reports to Apple read of the projection
    /// (docs/app-store.md, "Reports to Apple"), as two views the
    /// webhook-sender's role may read and nothing else of these tables: a
    /// view runs with its owner's rights, so granting it grants no email,
    /// user id or payload.
    ///
    /// `app_store_tokens`: each external purchase token with the storefront
    /// and type of the first checkout that carried it, and when that was.
    ///
    /// `app_store_token_movements`: the money each token led to, one row per
    /// future line item, keyed by the line's stable id. A one-time order
    /// named by a token's checkout (migration 12's `orders.checkout_id`) is
    /// a buy, and its refunded amount one refund; a subscription named by an
    /// event of a token's checkout has its payments (`payments`, oldest
    /// first) as its start and renewals, and each refunded payment a refund.
    /// The projection keeps a payment's latest state, so a refunded payment's
    /// charge is dated by its refund, and an order's partial refunds are one
    /// line of their total as first seen (docs/app-store.md, limits).
    static let appStoreReports =
        PostgresMigration.createRoleIfMissing("storefront_webhook_sender") + """
            CREATE VIEW app_store_tokens AS
                SELECT external_purchase_id,
                    (array_agg(external_purchase_token_type ORDER BY created_at, checkout_id))[1] AS token_type,
                    (array_agg(app_store_storefront ORDER BY created_at, checkout_id))[1] AS storefront,
                    min(created_at) AS first_seen
                FROM checkouts
                WHERE external_purchase_id IS NOT NULL AND app_store_storefront IS NOT NULL
                GROUP BY external_purchase_id;

            CREATE VIEW app_store_token_movements AS
                WITH token_orders AS (
                    SELECT DISTINCT c.external_purchase_id, o.provider, o.order_id, o.amount, o.currency, o.paid_at,
                        COALESCE(o.variant_id, o.product_id, c.variant_id) AS product, o.status, o.refunded_amount,
                        COALESCE(o.refunded_at, o.partially_refunded_at) AS refunded_at
                    FROM checkouts AS c
                    JOIN orders AS o ON o.provider = c.provider AND o.checkout_id = c.checkout_id
                    WHERE c.external_purchase_id IS NOT NULL AND c.is_subscription IS NOT TRUE
                        AND o.paid_at IS NOT NULL AND o.amount IS NOT NULL AND o.currency IS NOT NULL
                ),
                token_subscriptions AS (
                    SELECT DISTINCT c.external_purchase_id, e.provider, e.subscription_id
                    FROM checkouts AS c
                    JOIN billing_events AS e ON e.provider = c.provider AND e.checkout_id = c.checkout_id
                    WHERE c.external_purchase_id IS NOT NULL AND e.subscription_id IS NOT NULL
                ),
                charges AS (
                    SELECT t.external_purchase_id, p.provider, p.payment_id, p.kind, p.amount, p.currency, p.occurred_at,
                        COALESCE(s.variant_id, s.product_id) AS product, s.renews_at,
                        first_value(p.payment_id) OVER w AS first_payment,
                        lead(p.occurred_at) OVER w AS next_at
                    FROM token_subscriptions AS t
                    JOIN subscriptions AS s ON s.provider = t.provider AND s.subscription_id = t.subscription_id
                    JOIN payments AS p ON p.provider = t.provider AND p.subscription_id = t.subscription_id
                    WHERE p.kind IN ('paymentSucceeded', 'paymentRecovered', 'paymentRefunded')
                        AND p.amount IS NOT NULL AND p.currency IS NOT NULL AND p.occurred_at IS NOT NULL
                    WINDOW w AS (PARTITION BY t.external_purchase_id, t.provider, t.subscription_id ORDER BY p.occurred_at, p.payment_id)
                )
                SELECT external_purchase_id, provider || ':order:' || order_id AS line_key, 'oneTimeBuy' AS kind,
                    NULL::text AS reference_key, paid_at AS at, amount, currency, product,
                    NULL::timestamptz AS period_start, NULL::timestamptz AS period_end
                FROM token_orders
                UNION ALL
                SELECT external_purchase_id, provider || ':order:' || order_id || ':refund', 'refund', provider || ':order:' || order_id,
                    COALESCE(refunded_at, paid_at), COALESCE(refunded_amount, amount), currency, product, NULL, NULL
                FROM token_orders
                WHERE refunded_amount > 0 OR status = 'refunded'
                UNION ALL
                SELECT external_purchase_id, provider || ':payment:' || payment_id,
                    CASE WHEN payment_id = first_payment THEN 'subscriptionStart' ELSE 'renewal' END,
                    CASE WHEN payment_id = first_payment THEN NULL ELSE provider || ':payment:' || first_payment END,
                    occurred_at, amount, currency, product, occurred_at,
                    COALESCE(next_at, CASE WHEN renews_at > occurred_at THEN renews_at END, occurred_at + interval '1 month')
                FROM charges
                UNION ALL
                SELECT external_purchase_id, provider || ':payment:' || payment_id || ':refund', 'refund', provider || ':payment:' || payment_id,
                    occurred_at, amount, currency, product, NULL, NULL
                FROM charges
                WHERE kind = 'paymentRefunded';

            GRANT SELECT ON app_store_tokens, app_store_token_movements TO storefront_webhook_sender;
            """
}
