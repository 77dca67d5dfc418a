import Postgres

/// The projector's prepared statements. Every write is an idempotent,
/// order-independent upsert: replaying any subset of events, in any order,
/// converges to the same rows (see each statement for its merge rule).
enum ProjectionStatements {
    private static let t = PostgresDataType.text, ts = PostgresDataType.timestamptz, i8 = PostgresDataType.int8

    /// Serialises batches that touch the same entities (members of one group
    /// overlap briefly during a rebalance). Keys are locked in hash order so
    /// two transactions never wait on each other in a cycle.
    static let lock = PostgresPreparedStatement(
        name: "projector_lock_v1",
        sql: """
            SELECT count(pg_advisory_xact_lock(h)) FROM (
                SELECT DISTINCT hashtext(k) AS h FROM jsonb_array_elements_text($1::jsonb) AS k ORDER BY 1) AS keys
            """, parameterTypes: [t])

    /// The append-only log; a repeated dedup key changes nothing (0 rows).
    static let event = PostgresPreparedStatement(
        name: "projector_event_v2",
        sql: """
            INSERT INTO billing_events (dedup_key, provider, event_name, kind, entity_key, subscription_id, order_id,
                customer_id, app_user_id, ordering_ts, received_at, source_partition, source_offset, event, payload,
                plan_code, checkout_id, transaction_reference, authorization_code)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
            ON CONFLICT (dedup_key) DO NOTHING
            """, parameterTypes: [t, t, t, t, t, t, t, t, t, ts, ts, .int4, i8, .jsonb, .bytea, t, t, t, t])

    // MARK: - Ownership (first owner wins; nothing overwrites it)

    /// A purchase whose own custom data / metadata names the app user.
    static let owner = PostgresPreparedStatement(
        name: "projector_owner_v1",
        sql: """
            INSERT INTO purchase_owners (provider, purchase_type, purchase_id, app_user_id, source, evidence)
            VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING
            """, parameterTypes: [t, t, t, t, t, t])

    /// How far apart a Paystack charge and the subscription it created may be.
    static let chargeWindowSeconds = 86_400

    /// A Paystack subscription takes the owner of the charge that created it:
    /// same customer, same authorization, the one nearest in time.
    static let ownerFromCharge = PostgresPreparedStatement(
        name: "projector_owner_from_charge_v1",
        sql: """
            INSERT INTO purchase_owners (provider, purchase_type, purchase_id, app_user_id, source, evidence)
            SELECT 'paystack', 'subscription', $1, e.app_user_id, 'checkout', e.dedup_key FROM billing_events AS e
            WHERE e.provider = 'paystack' AND e.authorization_code = $2 AND e.customer_id = $3 AND e.app_user_id IS NOT NULL
                AND e.subscription_id IS NULL AND e.kind = 'paymentSucceeded'
                AND abs(extract(epoch FROM COALESCE(e.ordering_ts, e.received_at) - $4)) < \(chargeWindowSeconds)
            ORDER BY abs(extract(epoch FROM COALESCE(e.ordering_ts, e.received_at) - $4)), e.dedup_key
            LIMIT 1
            ON CONFLICT DO NOTHING
            """, parameterTypes: [t, t, t, ts])

    /// The same link from the charge's side, when the subscription came first.
    static let ownerOfChargedSubscriptions = PostgresPreparedStatement(
        name: "projector_owner_charged_v1",
        sql: """
            INSERT INTO purchase_owners (provider, purchase_type, purchase_id, app_user_id, source, evidence)
            SELECT DISTINCT 'paystack', 'subscription', e.subscription_id, $1::text, 'checkout', $2::text FROM billing_events AS e
            WHERE e.provider = 'paystack' AND e.authorization_code = $3 AND e.customer_id = $4 AND e.subscription_id IS NOT NULL
                AND abs(extract(epoch FROM COALESCE(e.ordering_ts, e.received_at) - $5)) < \(chargeWindowSeconds)
            ON CONFLICT DO NOTHING
            """, parameterTypes: [t, t, t, t, ts])

    /// A Lemon Squeezy purchase known only from a provider fetch (its
    /// webhooks, which carry the custom data, never came) takes the owner of
    /// the checkout that produced it: same variant, the email typed at that
    /// checkout, created while the checkout was open; the latest such checkout.
    static let ownerFromCheckout = PostgresPreparedStatement(
        name: "projector_owner_from_checkout_v1",
        sql: """
            INSERT INTO purchase_owners (provider, purchase_type, purchase_id, app_user_id, source, evidence)
            SELECT 'lemonsqueezy', $1, $2, c.app_user_id, 'checkout', 'checkout:' || c.checkout_id FROM checkouts AS c
            WHERE c.provider = 'lemonsqueezy' AND c.variant_id = $3 AND lower(c.email) = lower($4)
                AND c.created_at <= $5 AND $5 <= COALESCE(c.expires_at, c.created_at + interval '1 day')
            ORDER BY c.created_at DESC, c.checkout_id
            LIMIT 1
            ON CONFLICT DO NOTHING
            """, parameterTypes: [t, t, t, t, ts])

    /// A claim through a verified email gives an unowned subscription its owner.
    static let claimedSubscription = PostgresPreparedStatement(
        name: "projector_claimed_subscription_v1",
        sql: """
            UPDATE subscriptions AS s SET app_user_id = po.app_user_id FROM purchase_owners AS po
            WHERE po.provider = s.provider AND po.purchase_type = 'subscription' AND po.purchase_id = s.subscription_id
                AND s.provider = $1 AND s.subscription_id = $2 AND s.app_user_id IS NULL
            """, parameterTypes: [t, t])

    /// A claim through a verified email gives an unowned order its owner.
    static let claimedOrder = PostgresPreparedStatement(
        name: "projector_claimed_order_v1",
        sql: """
            UPDATE orders AS o SET app_user_id = po.app_user_id FROM purchase_owners AS po
            WHERE po.provider = o.provider AND po.purchase_type = 'order' AND po.purchase_id = o.order_id
                AND o.provider = $1 AND o.order_id = $2 AND o.app_user_id IS NULL
            """, parameterTypes: [t, t])

    /// Email: the newest non-null value by (provider timestamp, value) wins.
    static let appUser = PostgresPreparedStatement(
        name: "projector_app_user_v1",
        sql: """
            INSERT INTO app_users (app_user_id, email, email_at) VALUES ($1, $2, CASE WHEN $2 IS NULL THEN NULL ELSE $3 END)
            ON CONFLICT (app_user_id) DO UPDATE SET email = EXCLUDED.email, email_at = EXCLUDED.email_at, updated_at = now()
            WHERE EXCLUDED.email IS NOT NULL AND (app_users.email IS NULL
                OR (EXCLUDED.email_at, EXCLUDED.email) > (COALESCE(app_users.email_at, '-infinity'), app_users.email))
            """, parameterTypes: [t, t, ts])

    /// App user and email each: the newest non-null value by (timestamp, value) wins.
    /// The `WHERE` skips the update when neither would change (most events of
    /// a known customer), so the row is not rewritten once per event.
    static let customer = PostgresPreparedStatement(
        name: "projector_customer_v2",
        sql: """
            INSERT INTO provider_customers AS c (provider, customer_id, app_user_id, email, app_user_at, email_at)
            VALUES ($1, $2, $3, $4, CASE WHEN $3 IS NULL THEN NULL ELSE $5 END, CASE WHEN $4 IS NULL THEN NULL ELSE $5 END)
            ON CONFLICT (provider, customer_id) DO UPDATE SET
                app_user_id = CASE WHEN EXCLUDED.app_user_id IS NOT NULL AND (c.app_user_id IS NULL
                    OR (EXCLUDED.app_user_at, EXCLUDED.app_user_id) > (COALESCE(c.app_user_at, '-infinity'), c.app_user_id))
                    THEN EXCLUDED.app_user_id ELSE c.app_user_id END,
                app_user_at = CASE WHEN EXCLUDED.app_user_id IS NOT NULL AND (c.app_user_id IS NULL
                    OR (EXCLUDED.app_user_at, EXCLUDED.app_user_id) > (COALESCE(c.app_user_at, '-infinity'), c.app_user_id))
                    THEN EXCLUDED.app_user_at ELSE c.app_user_at END,
                email = CASE WHEN EXCLUDED.email IS NOT NULL AND (c.email IS NULL
                    OR (EXCLUDED.email_at, EXCLUDED.email) > (COALESCE(c.email_at, '-infinity'), c.email))
                    THEN EXCLUDED.email ELSE c.email END,
                email_at = CASE WHEN EXCLUDED.email IS NOT NULL AND (c.email IS NULL
                    OR (EXCLUDED.email_at, EXCLUDED.email) > (COALESCE(c.email_at, '-infinity'), c.email))
                    THEN EXCLUDED.email_at ELSE c.email_at END,
                updated_at = now()
            WHERE (EXCLUDED.app_user_id IS NOT NULL AND (c.app_user_id IS NULL
                    OR (EXCLUDED.app_user_at, EXCLUDED.app_user_id) > (COALESCE(c.app_user_at, '-infinity'), c.app_user_id)))
                OR (EXCLUDED.email IS NOT NULL AND (c.email IS NULL
                    OR (EXCLUDED.email_at, EXCLUDED.email) > (COALESCE(c.email_at, '-infinity'), c.email)))
            """, parameterTypes: [t, t, t, t, ts])

    /// Order created: its own fields win over what a refund filled in; the
    /// status never leaves `refunded`. The owner comes from `purchase_owners`;
    /// a subscription naming this order makes it that subscription's.
    static let orderCreated = PostgresPreparedStatement(
        name: "projector_order_created_v2",
        sql: """
            INSERT INTO orders AS o (provider, order_id, app_user_id, customer_id, customer_email, product_id, variant_id,
                product_name, status, amount, currency, paid_at, transaction_reference, test_mode, subscription_id)
            VALUES ($1, $2, \(ownerOf("order", provider: "$1", id: "$2")), $3, $4, $5, $6, $7, 'paid', $8, $9, $10, $11, $12,
                (SELECT min(e.subscription_id) FROM billing_events AS e
                 WHERE e.provider = $1 AND e.order_id = $2 AND e.subscription_id IS NOT NULL))
            ON CONFLICT (provider, order_id) DO UPDATE SET
                app_user_id = COALESCE(o.app_user_id, EXCLUDED.app_user_id),
                customer_id = COALESCE(EXCLUDED.customer_id, o.customer_id),
                customer_email = COALESCE(EXCLUDED.customer_email, o.customer_email),
                product_id = COALESCE(EXCLUDED.product_id, o.product_id),
                variant_id = COALESCE(EXCLUDED.variant_id, o.variant_id),
                product_name = COALESCE(EXCLUDED.product_name, o.product_name),
                amount = COALESCE(EXCLUDED.amount, o.amount),
                currency = COALESCE(EXCLUDED.currency, o.currency),
                paid_at = COALESCE(EXCLUDED.paid_at, o.paid_at),
                transaction_reference = COALESCE(EXCLUDED.transaction_reference, o.transaction_reference),
                test_mode = COALESCE(EXCLUDED.test_mode, o.test_mode),
                subscription_id = COALESCE(o.subscription_id, EXCLUDED.subscription_id)
            """, parameterTypes: [t, t, t, t, t, t, t, i8, t, ts, t, .bool])

    /// A Lemon Squeezy subscription names the order of its first payment.
    static let orderOfSubscription = PostgresPreparedStatement(
        name: "projector_order_of_subscription_v1",
        sql: """
            UPDATE orders SET subscription_id = $3 WHERE provider = $1 AND order_id = $2 AND subscription_id IS NULL
            """, parameterTypes: [t, t, t])

    /// The owner of a purchase as a sub-select over `purchase_owners`.
    static func ownerOf(_ type: String, provider: String, id: String) -> String {
        "(SELECT po.app_user_id FROM purchase_owners AS po WHERE po.provider = \(provider) AND po.purchase_type = '\(type)' AND po.purchase_id = \(id))"
    }

    /// A refund logged before its order (Paystack refunds name only the
    /// transaction reference) is applied when the order arrives.
    static let orderEarlierRefunds = PostgresPreparedStatement(
        name: "projector_order_earlier_refunds_v1",
        sql: """
            UPDATE orders AS o SET status = 'refunded',
                refunded_at = GREATEST(o.refunded_at, r.at), refunded_amount = GREATEST(o.refunded_amount, r.amount)
            FROM (SELECT max(COALESCE(ordering_ts, received_at)) AS at, max((event->>'amount')::bigint) AS amount
                  FROM billing_events WHERE provider = $1 AND kind = 'refundProcessed' AND transaction_reference = $3) AS r
            WHERE o.provider = $1 AND o.order_id = $2 AND r.at IS NOT NULL
            """, parameterTypes: [t, t, t])

    /// Refund naming the order (Lemon Squeezy `order_refunded`): terminal;
    /// fills fields the order has not set; latest time and largest amount win.
    static let orderRefunded = PostgresPreparedStatement(
        name: "projector_order_refunded_v2",
        sql: """
            INSERT INTO orders AS o (provider, order_id, app_user_id, customer_id, customer_email, product_id, variant_id,
                product_name, status, currency, refunded_at, refunded_amount, transaction_reference)
            VALUES ($1, $2, \(ownerOf("order", provider: "$1", id: "$2")), $3, $4, $5, $6, $7, 'refunded', $8, $9, $10, $11)
            ON CONFLICT (provider, order_id) DO UPDATE SET status = 'refunded',
                app_user_id = COALESCE(o.app_user_id, EXCLUDED.app_user_id),
                customer_id = COALESCE(o.customer_id, EXCLUDED.customer_id),
                customer_email = COALESCE(o.customer_email, EXCLUDED.customer_email),
                product_id = COALESCE(o.product_id, EXCLUDED.product_id),
                variant_id = COALESCE(o.variant_id, EXCLUDED.variant_id),
                product_name = COALESCE(o.product_name, EXCLUDED.product_name),
                currency = COALESCE(o.currency, EXCLUDED.currency),
                refunded_at = GREATEST(o.refunded_at, EXCLUDED.refunded_at),
                refunded_amount = GREATEST(o.refunded_amount, EXCLUDED.refunded_amount),
                transaction_reference = COALESCE(o.transaction_reference, EXCLUDED.transaction_reference)
            """, parameterTypes: [t, t, t, t, t, t, t, t, ts, i8, t])

    /// Refund naming only the transaction reference (Paystack `refund.processed`).
    static let orderRefundedByReference = PostgresPreparedStatement(
        name: "projector_order_refunded_ref_v1",
        sql: """
            UPDATE orders SET status = 'refunded', refunded_at = GREATEST(refunded_at, $3), refunded_amount = GREATEST(refunded_amount, $4)
            WHERE provider = $1 AND transaction_reference = $2
            """, parameterTypes: [t, t, ts, i8])

    /// One row per provider payment or invoice; the newest (time, kind, status) wins.
    static let payment = PostgresPreparedStatement(
        name: "projector_payment_v1",
        sql: """
            INSERT INTO payments AS p (provider, payment_id, subscription_id, kind, status, amount, currency, occurred_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
            ON CONFLICT (provider, payment_id) DO UPDATE SET
                subscription_id = COALESCE(EXCLUDED.subscription_id, p.subscription_id), kind = EXCLUDED.kind,
                status = EXCLUDED.status, amount = COALESCE(EXCLUDED.amount, p.amount),
                currency = COALESCE(EXCLUDED.currency, p.currency), occurred_at = EXCLUDED.occurred_at
            WHERE (COALESCE(EXCLUDED.occurred_at, '-infinity'), EXCLUDED.kind, COALESCE(EXCLUDED.status, ''))
                > (COALESCE(p.occurred_at, '-infinity'), p.kind, COALESCE(p.status, ''))
            """, parameterTypes: [t, t, t, t, t, i8, t, ts])

    /// Event kinds that complete a checkout naming them in custom data.
    static let completingKinds = "('orderCreated', 'subscriptionCreated', 'paymentSucceeded')"
    /// Event kinds that complete the app user's earlier checkouts when no checkout id came back.
    static let completingKindsByUser = "('orderCreated', 'subscriptionCreated')"

    /// A checkout as the checkout service published it; completed at the
    /// earliest matching purchase already logged (events may come first).
    static let checkout = PostgresPreparedStatement(
        name: "projector_checkout_v1",
        sql: """
            INSERT INTO checkouts (checkout_id, provider, app_user_id, email, product_id, variant_id, provider_checkout_id,
                url, created_at, expires_at, completed_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, (
                SELECT min(COALESCE(e.ordering_ts, e.received_at)) FROM billing_events AS e WHERE e.provider = $2 AND (
                    (e.checkout_id = $1 AND e.kind IN \(completingKinds))
                    OR (e.checkout_id IS NULL AND e.app_user_id = $3 AND e.kind IN \(completingKindsByUser)
                        AND COALESCE(e.ordering_ts, e.received_at) >= $9))))
            ON CONFLICT (checkout_id) DO NOTHING
            """, parameterTypes: [t, t, t, t, t, t, t, t, ts, ts])

    /// A purchase naming its checkout: completed at the earliest such time.
    static let completeByID = PostgresPreparedStatement(
        name: "projector_complete_id_v1",
        sql: """
            UPDATE checkouts SET completed_at = LEAST(completed_at, $3)
            WHERE checkout_id = $2 AND provider = $1
            """, parameterTypes: [t, t, ts])

    /// A purchase without a checkout id: completes the app user's checkouts created before it.
    static let completeByUser = PostgresPreparedStatement(
        name: "projector_complete_user_v1",
        sql: """
            UPDATE checkouts SET completed_at = LEAST(completed_at, $3)
            WHERE provider = $1 AND app_user_id = $2 AND created_at <= $3
            """, parameterTypes: [t, t, ts])

    /// Audit of commands; a repeated command id changes nothing.
    static let command = PostgresPreparedStatement(
        name: "projector_command_v1",
        sql: """
            INSERT INTO commands (command_id, kind, provider, subscription_id, app_user_id, requested_at)
            VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (command_id) DO NOTHING
            """, parameterTypes: [t, t, t, t, t, ts])

    /// The fold's result replaces the row; the owner comes from `purchase_owners`.
    static let subscription = PostgresPreparedStatement(
        name: "projector_subscription_v4",
        sql: """
            INSERT INTO subscriptions (provider, subscription_id, app_user_id, customer_id, customer_email, product_id,
                variant_id, plan_name, status, renews_at, ends_at, trial_ends_at, cancel_at_period_end, email_token,
                card_brand, card_last_four, customer_portal_url, update_payment_method_url, source_updated_at, last_event_key,
                pause_mode, pause_resumes_at, test_mode, order_id, authorization_code, original_purchase_at,
                latest_purchase_at, unsubscribe_detected_at, billing_issue_detected_at, refunded_at, portal_urls_seen_at,
                last_event_at, last_event_rank)
            VALUES ($1, $2, \(ownerOf("subscription", provider: "$1", id: "$2")), $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,
                $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32)
            ON CONFLICT (provider, subscription_id) DO UPDATE SET
                app_user_id = EXCLUDED.app_user_id, customer_id = EXCLUDED.customer_id,
                customer_email = EXCLUDED.customer_email, product_id = EXCLUDED.product_id,
                variant_id = EXCLUDED.variant_id, plan_name = EXCLUDED.plan_name, status = EXCLUDED.status,
                renews_at = EXCLUDED.renews_at, ends_at = EXCLUDED.ends_at, trial_ends_at = EXCLUDED.trial_ends_at,
                cancel_at_period_end = EXCLUDED.cancel_at_period_end, email_token = EXCLUDED.email_token,
                card_brand = EXCLUDED.card_brand, card_last_four = EXCLUDED.card_last_four,
                customer_portal_url = EXCLUDED.customer_portal_url,
                update_payment_method_url = EXCLUDED.update_payment_method_url,
                source_updated_at = EXCLUDED.source_updated_at, last_event_key = EXCLUDED.last_event_key,
                pause_mode = EXCLUDED.pause_mode, pause_resumes_at = EXCLUDED.pause_resumes_at,
                test_mode = EXCLUDED.test_mode, order_id = EXCLUDED.order_id,
                authorization_code = EXCLUDED.authorization_code, original_purchase_at = EXCLUDED.original_purchase_at,
                latest_purchase_at = EXCLUDED.latest_purchase_at, unsubscribe_detected_at = EXCLUDED.unsubscribe_detected_at,
                billing_issue_detected_at = EXCLUDED.billing_issue_detected_at, refunded_at = EXCLUDED.refunded_at,
                portal_urls_seen_at = EXCLUDED.portal_urls_seen_at, last_event_at = EXCLUDED.last_event_at,
                last_event_rank = EXCLUDED.last_event_rank, projected_at = now()
            """,
        parameterTypes: [
            t, t, t, t, t, t, t, t, ts, ts, ts, .bool, t, t, t, t, t, ts, t, t, ts, .bool, t, t, ts, ts, ts, ts, ts, ts,
            ts, .int4,
        ])

    static let all = [
        lock, event, owner, ownerFromCharge, ownerOfChargedSubscriptions, ownerFromCheckout, claimedSubscription, claimedOrder,
        appUser, customer, orderCreated, orderOfSubscription, orderEarlierRefunds, orderRefunded,
        orderRefundedByReference, payment, checkout, completeByID, completeByUser, command,
    ]
}
