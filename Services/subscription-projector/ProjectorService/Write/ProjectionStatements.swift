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

    /// The log's columns, in the order of ``event``'s parameters (the set and
    /// snapshot forms insert the same columns).
    static let eventColumns = """
        dedup_key, provider, event_name, kind, entity_key, subscription_id, order_id, customer_id, app_user_id, ordering_ts,
        received_at, source_partition, source_offset, event, payload, plan_code, checkout_id, transaction_reference,
        authorization_code, price_amount, price_currency, interval_unit, interval_count
        """

    /// The append-only log; a repeated dedup key changes nothing (0 rows).
    /// `$20`–`$23`: the recurring price the payload states (revenue report).
    static let event = PostgresPreparedStatement(
        name: "projector_event_v3",
        sql: """
            INSERT INTO billing_events (\(eventColumns))
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)
            ON CONFLICT (dedup_key) DO NOTHING
            """, parameterTypes: [t, t, t, t, t, t, t, t, t, ts, ts, .int4, i8, .jsonb, .bytea, t, t, t, t, i8, t, t, .int4])

    // MARK: - Ownership (ranked evidence, append-only; the owner is `purchase_owner(...)`)

    /// Evidence that names the app user: the purchase's own proven custom
    /// data / metadata (`custom_data`). The first evidence of each user is kept.
    static let owner = PostgresPreparedStatement(
        name: "projector_owner_v2",
        sql: """
            INSERT INTO purchase_owners (provider, purchase_type, purchase_id, app_user_id, source, evidence)
            VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING
            """, parameterTypes: [t, t, t, t, t, t])

    /// A claim by a command (`$6`): `email` (a claim through the user's
    /// verified email, the weakest evidence) or `redemption` (a redeemed
    /// redemption link, the strongest). Of each kind the first claim of a
    /// purchase stands: a second user adds no evidence of that kind, so a
    /// purchase never gets two users by it (which would leave it nobody's).
    static let firstClaim = PostgresPreparedStatement(
        name: "projector_first_claim_v1",
        sql: """
            INSERT INTO purchase_owners (provider, purchase_type, purchase_id, app_user_id, source, evidence)
            SELECT $1, $2, $3, $4, $6, $5
            WHERE NOT EXISTS (
                SELECT 1 FROM purchase_owners WHERE provider = $1 AND purchase_type = $2 AND purchase_id = $3 AND source = $6)
            ON CONFLICT DO NOTHING
            """, parameterTypes: [t, t, t, t, t, t])

    /// An anonymous user merged into a signed-in one: the first merge of an id stands.
    static let userMerge = PostgresPreparedStatement(
        name: "projector_user_merge_v1",
        sql: """
            INSERT INTO user_aliases (anonymous_id, app_user_id, command_id, merged_at)
            SELECT $1, $2, $3, $4 WHERE $1 <> $2
            ON CONFLICT (anonymous_id) DO NOTHING
            """, parameterTypes: [t, t, t, ts])

    /// After a merge: every subscription with evidence naming the anonymous id names its owner anew.
    static let syncMergedSubscriptions = PostgresPreparedStatement(
        name: "projector_sync_merged_subscriptions_v1",
        sql: """
            UPDATE subscriptions AS s SET app_user_id = purchase_owner(s.provider, 'subscription', s.subscription_id)
            FROM (SELECT DISTINCT provider, purchase_id FROM purchase_owners
                  WHERE app_user_id = $1 AND purchase_type = 'subscription') AS po
            WHERE s.provider = po.provider AND s.subscription_id = po.purchase_id
                AND s.app_user_id IS DISTINCT FROM purchase_owner(s.provider, 'subscription', s.subscription_id)
            """, parameterTypes: [t])

    /// After a merge: every order with evidence naming the anonymous id names its owner anew.
    static let syncMergedOrders = PostgresPreparedStatement(
        name: "projector_sync_merged_orders_v1",
        sql: """
            UPDATE orders AS o SET app_user_id = purchase_owner(o.provider, 'order', o.order_id)
            FROM (SELECT DISTINCT provider, purchase_id FROM purchase_owners
                  WHERE app_user_id = $1 AND purchase_type = 'order') AS po
            WHERE o.provider = po.provider AND o.order_id = po.purchase_id
                AND o.app_user_id IS DISTINCT FROM purchase_owner(o.provider, 'order', o.order_id)
            """, parameterTypes: [t])

    /// After new evidence: the subscription row names whoever the evidence now says owns it.
    static let syncSubscriptionOwner = PostgresPreparedStatement(
        name: "projector_sync_subscription_owner_v1",
        sql: """
            UPDATE subscriptions SET app_user_id = purchase_owner(provider, 'subscription', subscription_id)
            WHERE provider = $1 AND subscription_id = $2
                AND app_user_id IS DISTINCT FROM purchase_owner(provider, 'subscription', subscription_id)
            """, parameterTypes: [t, t])

    /// After new evidence: the order row names whoever the evidence now says owns it.
    static let syncOrderOwner = PostgresPreparedStatement(
        name: "projector_sync_order_owner_v1",
        sql: """
            UPDATE orders SET app_user_id = purchase_owner(provider, 'order', order_id)
            WHERE provider = $1 AND order_id = $2 AND app_user_id IS DISTINCT FROM purchase_owner(provider, 'order', order_id)
            """, parameterTypes: [t, t])

    /// After a charge named owners of the subscriptions it created (``ownerOfChargedSubscriptions``).
    static let syncChargedSubscriptionOwners = PostgresPreparedStatement(
        name: "projector_sync_charged_owners_v2",
        sql: """
            UPDATE subscriptions SET app_user_id = purchase_owner(provider, 'subscription', subscription_id)
            WHERE provider = $1 AND authorization_code = $2 AND customer_id = $3
                AND app_user_id IS DISTINCT FROM purchase_owner(provider, 'subscription', subscription_id)
            """, parameterTypes: [t, t, t])

    /// How far apart a charge and the subscription it created may be
    /// (``ProviderTraits/chargesLinkToSubscriptionsByCard``; Paystack).
    static let chargeWindowSeconds = 86_400

    /// A subscription of a provider whose charges name no subscription
    /// (``ProviderTraits/chargesLinkToSubscriptionsByCard``; Paystack) is
    /// owned (`charge`) by the user whose proven charge created it: same
    /// provider, customer and authorization, within a day. `$1` is the provider.
    /// Every such charge is evidence; two users' charges make it nobody's.
    static let ownerFromCharge = PostgresPreparedStatement(
        name: "projector_owner_from_charge_v3",
        sql: """
            INSERT INTO purchase_owners (provider, purchase_type, purchase_id, app_user_id, source, evidence)
            SELECT DISTINCT ON (e.app_user_id) $1::text, 'subscription', $2::text, e.app_user_id, 'charge', e.dedup_key
            FROM billing_events AS e
            WHERE e.provider = $1 AND e.authorization_code = $3 AND e.customer_id = $4 AND e.app_user_id IS NOT NULL
                AND e.subscription_id IS NULL AND e.kind = 'paymentSucceeded'
                AND abs(extract(epoch FROM COALESCE(e.ordering_ts, e.received_at) - $5)) < \(chargeWindowSeconds)
            ORDER BY e.app_user_id, e.dedup_key
            ON CONFLICT DO NOTHING
            """, parameterTypes: [t, t, t, t, ts])

    /// The same link from the charge's side, when the subscription came first.
    static let ownerOfChargedSubscriptions = PostgresPreparedStatement(
        name: "projector_owner_charged_v3",
        sql: """
            INSERT INTO purchase_owners (provider, purchase_type, purchase_id, app_user_id, source, evidence)
            SELECT DISTINCT $1::text, 'subscription', e.subscription_id, $2::text, 'charge', $3::text FROM billing_events AS e
            WHERE e.provider = $1 AND e.authorization_code = $4 AND e.customer_id = $5 AND e.subscription_id IS NOT NULL
                AND abs(extract(epoch FROM COALESCE(e.ordering_ts, e.received_at) - $6)) < \(chargeWindowSeconds)
            ON CONFLICT DO NOTHING
            """, parameterTypes: [t, t, t, t, t, ts])

    /// A purchase known only from a provider fetch whose API objects carry no
    /// custom data (``ProviderTraits/fetchedPurchasesMatchCheckouts``; Lemon
    /// Squeezy; `$1` is the provider) is matched (`checkout`) to the checkouts that
    /// could have produced it: same variant, opened with the user's VERIFIED
    /// email (a typed address is only a pre-fill), created while the checkout
    /// was open. Checkouts of two users make it nobody's by this evidence;
    /// the webhook's proven custom data, when it comes, outranks it.
    static let ownerFromCheckout = PostgresPreparedStatement(
        name: "projector_owner_from_checkout_v3",
        sql: """
            INSERT INTO purchase_owners (provider, purchase_type, purchase_id, app_user_id, source, evidence)
            SELECT DISTINCT ON (c.app_user_id) $1::text, $2::text, $3::text, c.app_user_id, 'checkout', 'checkout:' || c.checkout_id
            FROM checkouts AS c
            WHERE c.provider = $1 AND c.variant_id = $4 AND c.email_verified AND lower(c.email) = lower($5)
                AND c.created_at <= $6 AND $6 <= COALESCE(c.expires_at, c.created_at + interval '1 day')
            ORDER BY c.app_user_id, c.created_at DESC, c.checkout_id
            ON CONFLICT DO NOTHING
            """, parameterTypes: [t, t, t, t, t, ts])

    /// Email: the newest non-null value by (provider timestamp, value) wins.
    static let appUser = PostgresPreparedStatement(
        name: "projector_app_user_v1",
        sql: """
            INSERT INTO app_users (app_user_id, email, email_at) VALUES ($1, $2, CASE WHEN $2 IS NULL THEN NULL ELSE $3 END)
            \(appUserMerge)
            """, parameterTypes: [t, t, ts])

    /// ``appUser``'s merge rule, shared with its set-based form (``appUsers(_:)``).
    static let appUserMerge = """
        ON CONFLICT (app_user_id) DO UPDATE SET email = EXCLUDED.email, email_at = EXCLUDED.email_at, updated_at = now()
        WHERE EXCLUDED.email IS NOT NULL AND (app_users.email IS NULL
            OR (EXCLUDED.email_at, EXCLUDED.email) > (COALESCE(app_users.email_at, '-infinity'), app_users.email))
        """

    /// App user and email each: the newest non-null value by (timestamp, value) wins.
    /// The `WHERE` skips the update when neither would change (most events of
    /// a known customer), so the row is not rewritten once per event.
    static let customer = PostgresPreparedStatement(
        name: "projector_customer_v2",
        sql: """
            INSERT INTO provider_customers AS c (provider, customer_id, app_user_id, email, app_user_at, email_at)
            VALUES ($1, $2, $3, $4, CASE WHEN $3 IS NULL THEN NULL ELSE $5 END, CASE WHEN $4 IS NULL THEN NULL ELSE $5 END)
            \(customerMerge)
            """, parameterTypes: [t, t, t, t, ts])

    /// ``customer``'s merge rule, shared with its set-based form (``customers(_:)``).
    static let customerMerge = """
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
        """

    /// Order created: its own fields win over what a refund filled in; the
    /// status never leaves `refunded`. The owner comes from `purchase_owners`;
    /// a subscription naming this order makes it that subscription's.
    static let orderCreated = PostgresPreparedStatement(
        name: "projector_order_created_v3",
        sql: """
            INSERT INTO orders AS o (provider, order_id, app_user_id, customer_id, customer_email, product_id, variant_id,
                product_name, status, amount, currency, paid_at, transaction_reference, test_mode, checkout_id, subscription_id)
            VALUES ($1, $2, purchase_owner($1, 'order', $2), $3, $4, $5, $6, $7, 'paid', $8, $9, $10, $11, $12, $13,
                (SELECT min(e.subscription_id) FROM billing_events AS e
                 WHERE e.provider = $1 AND e.order_id = $2 AND e.subscription_id IS NOT NULL))
            ON CONFLICT (provider, order_id) DO UPDATE SET
                app_user_id = EXCLUDED.app_user_id,
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
                checkout_id = COALESCE(o.checkout_id, EXCLUDED.checkout_id),
                subscription_id = COALESCE(o.subscription_id, EXCLUDED.subscription_id)
            """, parameterTypes: [t, t, t, t, t, t, t, i8, t, ts, t, .bool, t])

    /// A Lemon Squeezy subscription names the order of its first payment.
    static let orderOfSubscription = PostgresPreparedStatement(
        name: "projector_order_of_subscription_v1",
        sql: """
            UPDATE orders SET subscription_id = $3 WHERE provider = $1 AND order_id = $2 AND subscription_id IS NULL
            """, parameterTypes: [t, t, t])

    /// Refund naming the order (Lemon Squeezy `order_refunded`, full or
    /// partial; `$12` says full). A full refund is terminal; a partial one
    /// is recorded for the access policy. Fills fields the order has not
    /// set; earliest refund time and largest amount win.
    static let orderRefunded = PostgresPreparedStatement(
        name: "projector_order_refunded_v3",
        sql: """
            INSERT INTO orders AS o (provider, order_id, app_user_id, customer_id, customer_email, product_id, variant_id,
                product_name, status, currency, refunded_at, refunded_amount, transaction_reference, partially_refunded_at)
            VALUES ($1, $2, purchase_owner($1, 'order', $2), $3, $4, $5, $6, $7, CASE WHEN $12 THEN 'refunded' ELSE 'paid' END,
                $8, CASE WHEN $12 THEN $9::timestamptz END, $10, $11, CASE WHEN $12 THEN NULL ELSE $9::timestamptz END)
            ON CONFLICT (provider, order_id) DO UPDATE SET
                status = CASE WHEN $12 THEN 'refunded' ELSE o.status END,
                partially_refunded_at = LEAST(o.partially_refunded_at, EXCLUDED.partially_refunded_at),
                app_user_id = EXCLUDED.app_user_id,
                customer_id = COALESCE(o.customer_id, EXCLUDED.customer_id),
                customer_email = COALESCE(o.customer_email, EXCLUDED.customer_email),
                product_id = COALESCE(o.product_id, EXCLUDED.product_id),
                variant_id = COALESCE(o.variant_id, EXCLUDED.variant_id),
                product_name = COALESCE(o.product_name, EXCLUDED.product_name),
                currency = COALESCE(o.currency, EXCLUDED.currency),
                refunded_at = LEAST(o.refunded_at, EXCLUDED.refunded_at),
                refunded_amount = GREATEST(o.refunded_amount, EXCLUDED.refunded_amount),
                transaction_reference = COALESCE(o.transaction_reference, EXCLUDED.transaction_reference)
            """, parameterTypes: [t, t, t, t, t, t, t, t, ts, i8, t, .bool])

    /// The refunds and disputes of a one-time order paid by transaction
    /// `$2` (Paystack names only the transaction), recomputed from the log
    /// whenever the order or one of them arrives, so any order of arrival
    /// and any redelivery gives the same row. Each `refund.processed` names
    /// its own amount, so they add up; a dispute resolved
    /// `merchant-accepted` returns its amount too; a return without an
    /// amount (a transaction fetched `reversed`) returns everything. All of
    /// the order's amount returned: `refunded` (terminal); less: partially
    /// refunded, for the access policy. A dispute is open from its first
    /// `create`/`remind` until a `resolve`.
    static let orderMoneyBack = PostgresPreparedStatement(
        name: "projector_order_money_back_v1",
        sql: """
            WITH m AS (
                SELECT COALESCE(ordering_ts, received_at) AS at, kind, event->>'disputeResolution' AS resolution,
                    (CASE WHEN kind = 'refundProcessed' THEN event->>'refundedAmount'
                          ELSE COALESCE(event->>'refundedAmount', event->>'amount') END)::bigint AS returned
                FROM billing_events
                WHERE provider = $1 AND transaction_reference = $2
                    AND kind IN ('refundProcessed', 'disputeCreated', 'disputeReminder', 'disputeResolved')),
            back AS (
                SELECT count(*) AS returns, bool_or(returned IS NULL) AS whole, COALESCE(sum(returned), 0) AS total,
                    min(at) AS first_at, max(at) AS last_at
                FROM m WHERE kind = 'refundProcessed' OR resolution = 'merchant-accepted'),
            dispute AS (
                SELECT min(at) FILTER (WHERE kind <> 'disputeResolved') AS opened, max(at) FILTER (WHERE kind = 'disputeResolved') AS resolved
                FROM m)
            UPDATE orders AS o SET
                status = CASE WHEN b.returns > 0 AND (b.whole OR o.amount IS NULL OR b.total >= o.amount) THEN 'refunded' ELSE o.status END,
                refunded_at = CASE WHEN b.returns > 0 AND (b.whole OR o.amount IS NULL OR b.total >= o.amount) THEN b.last_at END,
                partially_refunded_at = CASE WHEN b.returns > 0 AND NOT (b.whole OR o.amount IS NULL OR b.total >= o.amount)
                    THEN b.first_at END,
                refunded_amount = CASE WHEN b.returns > 0 THEN b.total END,
                dispute_opened_at = d.opened, dispute_resolved_at = d.resolved
            FROM back AS b, dispute AS d
            WHERE o.provider = $1 AND o.transaction_reference = $2 AND EXISTS (SELECT 1 FROM m)
            """, parameterTypes: [t, t])

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
        name: "projector_checkout_v5",
        sql: """
            INSERT INTO checkouts (checkout_id, provider, app_user_id, email, product_id, variant_id, provider_checkout_id,
                url, created_at, expires_at, email_verified, is_subscription, ref, app_store_storefront, external_purchase_id,
                external_purchase_token_type, completed_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, (
                SELECT min(COALESCE(e.ordering_ts, e.received_at)) FROM billing_events AS e WHERE e.provider = $2 AND (
                    (e.checkout_id = $1 AND e.kind IN \(completingKinds))
                    OR (e.checkout_id IS NULL AND e.app_user_id = $3 AND e.kind IN \(completingKindsByUser)
                        AND COALESCE(e.ordering_ts, e.received_at) >= $9))))
            ON CONFLICT (checkout_id) DO NOTHING
            """, parameterTypes: [t, t, t, t, t, t, t, t, ts, ts, .bool, .bool, t, t, t, t])

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

    /// Audit of commands; a repeated command id changes nothing. A refund
    /// request also keeps who asked (the API key's id), the payment, the
    /// amount and how the provider took it (projection migration 18).
    static let command = PostgresPreparedStatement(
        name: "projector_command_v2",
        sql: """
            INSERT INTO commands (command_id, kind, provider, subscription_id, app_user_id, requested_at,
                                  requested_by, payment_id, amount, outcome)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (command_id) DO NOTHING
            """, parameterTypes: [t, t, t, t, t, ts, t, t, i8, t])

    /// The fold's result replaces the row (``subscriptions``, one row per
    /// folded subscription); the owner comes from `purchase_owners`. The
    /// columns, in bind order, with `app_user_id` computed, not bound.
    static let subscriptionColumns = """
        provider, subscription_id, app_user_id, customer_id, customer_email, product_id,
        variant_id, plan_name, status, renews_at, ends_at, trial_ends_at, cancel_at_period_end, email_token,
        card_brand, card_last_four, customer_portal_url, update_payment_method_url, source_updated_at, last_event_key,
        pause_mode, pause_resumes_at, test_mode, order_id, authorization_code, original_purchase_at,
        latest_purchase_at, unsubscribe_detected_at, billing_issue_detected_at, refunded_at, portal_urls_seen_at,
        last_event_at, last_event_rank, partially_refunded_at, dispute_opened_at, pending_variant_id, pending_change_at,
        starts_at
        """

    /// Every column but the key takes the fold's value.
    static let subscriptionUpdate = """
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
            last_event_rank = EXCLUDED.last_event_rank, partially_refunded_at = EXCLUDED.partially_refunded_at,
            dispute_opened_at = EXCLUDED.dispute_opened_at, pending_variant_id = EXCLUDED.pending_variant_id,
            pending_change_at = EXCLUDED.pending_change_at, starts_at = EXCLUDED.starts_at, projected_at = now()
        """

    /// The binds of one subscription row (``ProjectionWriter/subscriptionRow(_:)``): every column but `app_user_id`.
    static let subscriptionParameterTypes: [PostgresDataType] = [
        t, t, t, t, t, t, t, t, ts, ts, ts, .bool, t, t, t, t, t, ts, t, t, ts, .bool, t, t, ts, ts, ts, ts, ts, ts,
        ts, .int4, ts, ts, t, ts, ts,
    ]

    static let all = [
        lock, event, owner, firstClaim, userMerge, syncMergedSubscriptions, syncMergedOrders, ownerFromCharge,
        ownerOfChargedSubscriptions, ownerFromCheckout, syncSubscriptionOwner, syncOrderOwner,
        syncChargedSubscriptionOwners, appUser, customer, orderCreated, orderOfSubscription, orderMoneyBack, orderRefunded, payment, checkout,
        completeByID, completeByUser, command, snapshotSubscription, snapshotOrder, snapshotTransaction, grantGiven, grantRevoked,
    ]
}
