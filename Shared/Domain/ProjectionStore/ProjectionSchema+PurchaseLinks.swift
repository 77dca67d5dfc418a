import Postgres

extension ProjectionSchema {
    /// Migration 24: the two links every report of a checkout's money needs,
    /// written once as views, so the campaign figures, the storefront report
    /// and the reports to Apple cannot link a purchase differently.
    ///
    /// `checkout_subscriptions`: the subscriptions each checkout made, one row
    /// per linking event (`linked_at` is its `ordering_ts`, so a report can
    /// keep only links logged before its end). An event of the subscription
    /// names the checkout; or (Paystack, whose subscription objects carry no
    /// metadata) the checkout's charge and the subscription share their card
    /// authorization and customer (`through_card`).
    ///
    /// `subscription_charges`: each subscription's charges, with their refund.
    /// `payments` rows naming the subscription (a refunded one is its latest
    /// state: charged and refunded at once, in full; so is a paid invoice the
    /// reconciler fetched after its payment, Stripe's `invoiceUpdated` with
    /// status `paid`, which migration 23's view lost); and charges naming no
    /// subscription but carrying a card authorization (Paystack's first
    /// charge and renewals) linked by the rule the refund check uses
    /// (`RefundablePaymentReader`): the subscription's customer, plan and
    /// card, and no other subscription with all three. Such a charge keeps
    /// its own time; its refund is the refunds and merchant-accepted disputes
    /// logged against its transaction (as an order's, `orderMoneyBack`),
    /// summed and dated by the latest.
    ///
    /// `app_store_token_movements` (migration 23) is redefined over both, with
    /// the same columns and the same line keys: a line already sent to Apple
    /// keeps its key, and Paystack subscriptions get their lines. Its text
    /// restates most of migration 23's, which cannot change once applied
    /// (the migrator checks each applied migration's checksum).
    static let purchaseLinks = """
        CREATE VIEW checkout_subscriptions AS
            SELECT c.provider, c.checkout_id, e.subscription_id, false AS through_card, e.ordering_ts AS linked_at
            FROM checkouts AS c
            JOIN billing_events AS e ON e.provider = c.provider AND e.checkout_id = c.checkout_id
            WHERE e.subscription_id IS NOT NULL
            UNION
            SELECT c.provider, c.checkout_id, s.subscription_id, true, e.ordering_ts
            FROM checkouts AS c
            JOIN billing_events AS e ON e.provider = c.provider AND e.checkout_id = c.checkout_id
            JOIN subscriptions AS s ON s.provider = c.provider AND s.authorization_code = e.authorization_code
                AND s.customer_id = e.customer_id
            WHERE e.authorization_code IS NOT NULL;

        CREATE VIEW subscription_charges AS
            SELECT p.provider, p.subscription_id, p.payment_id, p.amount, p.currency, p.occurred_at AS charged_at,
                CASE WHEN p.kind = 'paymentRefunded' THEN p.occurred_at END AS refunded_at,
                CASE WHEN p.kind = 'paymentRefunded' THEN p.amount END AS refunded_amount
            FROM payments AS p
            WHERE p.subscription_id IS NOT NULL
                AND (p.kind IN ('paymentSucceeded', 'paymentRecovered', 'paymentRefunded') OR (p.kind = 'invoiceUpdated' AND p.status = 'paid'))
            UNION ALL
            SELECT k.provider, k.subscription_id, k.payment_id, k.amount, k.currency, k.occurred_at, r.at, r.amount
            FROM (
                SELECT DISTINCT s.provider, s.subscription_id, c.payment_id, c.amount, c.currency, c.occurred_at, e.transaction_reference
                FROM subscriptions AS s
                JOIN billing_events AS e ON e.provider = s.provider AND e.subscription_id IS NULL
                    AND e.kind IN ('paymentSucceeded', 'paymentRecovered') AND e.authorization_code = s.authorization_code
                    AND e.customer_id = s.customer_id AND e.plan_code = s.variant_id
                JOIN payments AS c ON c.provider = e.provider AND c.payment_id = e.order_id AND c.subscription_id IS NULL
                    AND c.kind IN ('paymentSucceeded', 'paymentRecovered', 'paymentRefunded')
                WHERE NOT EXISTS (
                    SELECT 1 FROM subscriptions AS x
                    WHERE x.provider = s.provider AND x.subscription_id <> s.subscription_id AND x.customer_id = s.customer_id
                        AND x.variant_id = s.variant_id AND x.authorization_code = s.authorization_code)
            ) AS k
            LEFT JOIN LATERAL (
                SELECT max(COALESCE(m.ordering_ts, m.received_at)) AS at,
                    sum(COALESCE((m.event->>'refundedAmount')::bigint, k.amount))::bigint AS amount
                FROM billing_events AS m
                WHERE m.provider = k.provider AND m.transaction_reference = k.transaction_reference AND m.subscription_id IS NULL
                    AND (m.kind = 'refundProcessed' OR (m.kind = 'disputeResolved' AND m.event->>'disputeResolution' = 'merchant-accepted'))
                HAVING count(*) > 0
            ) AS r ON true;

        CREATE OR REPLACE VIEW app_store_token_movements AS
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
                SELECT DISTINCT c.external_purchase_id, l.provider, l.subscription_id
                FROM checkouts AS c
                JOIN checkout_subscriptions AS l ON l.provider = c.provider AND l.checkout_id = c.checkout_id
                WHERE c.external_purchase_id IS NOT NULL
            ),
            charges AS (
                SELECT t.external_purchase_id, p.provider, p.payment_id, p.amount, p.currency, p.charged_at, p.refunded_at, p.refunded_amount,
                    COALESCE(s.variant_id, s.product_id) AS product, s.renews_at,
                    first_value(p.payment_id) OVER w AS first_payment,
                    lead(p.charged_at) OVER w AS next_at
                FROM token_subscriptions AS t
                JOIN subscriptions AS s ON s.provider = t.provider AND s.subscription_id = t.subscription_id
                JOIN subscription_charges AS p ON p.provider = t.provider AND p.subscription_id = t.subscription_id
                WHERE p.amount IS NOT NULL AND p.currency IS NOT NULL AND p.charged_at IS NOT NULL
                WINDOW w AS (PARTITION BY t.external_purchase_id, t.provider, t.subscription_id ORDER BY p.charged_at, p.payment_id)
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
                charged_at, amount, currency, product, charged_at,
                COALESCE(next_at, CASE WHEN renews_at > charged_at THEN renews_at END, charged_at + interval '1 month')
            FROM charges
            UNION ALL
            SELECT external_purchase_id, provider || ':payment:' || payment_id || ':refund', 'refund', provider || ':payment:' || payment_id,
                refunded_at, refunded_amount, currency, product, NULL, NULL
            FROM charges
            WHERE refunded_at IS NOT NULL;

        GRANT SELECT ON checkout_subscriptions, subscription_charges TO storefront_readonly;
        """
}
