extension ProjectionSchema {
    /// The transactional outbox of entitlement changes (docs/architecture.md,
    /// "Entitlement changes").
    ///
    /// - `entitlement_touched`: which app users' purchases a transaction
    ///   wrote. Filled by statement-level triggers on `subscriptions` and
    ///   `orders`, so it follows every statement that writes them, whatever
    ///   its shape, and emptied by the projector's outbox step in the same
    ///   transaction. UNLOGGED: a row lives only inside its transaction.
    /// - `entitlement_states`: the entitlements last announced per user (the
    ///   JSON the outbox compared), so the step needs no "before" read ahead
    ///   of the batch's writes, and a redelivered batch announces nothing.
    /// - `entitlement_outbox`: one row per announced change, published by the
    ///   relay in `seq` order and then marked.
    static let entitlementOutbox = """
        CREATE UNLOGGED TABLE entitlement_touched (
            app_user_id    text NOT NULL,
            provider       text NOT NULL,
            purchase_type  text NOT NULL,
            purchase_id    text NOT NULL,
            -- The purchase moved to or away from this user in the statement.
            transferred    boolean NOT NULL
        );

        CREATE TABLE entitlement_states (
            app_user_id   text PRIMARY KEY,
            -- The `entitlements` list as RecordCoding wrote it (text, so the bytes compare).
            entitlements  text NOT NULL,
            updated_at    timestamptz NOT NULL DEFAULT now()
        );

        CREATE TABLE entitlement_outbox (
            seq           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            event_id      text NOT NULL UNIQUE,
            app_user_id   text NOT NULL,
            event_type    text NOT NULL,
            -- The EntitlementChange record, byte for byte as published.
            record        text NOT NULL,
            created_at    timestamptz NOT NULL DEFAULT now(),
            published_at  timestamptz
        );
        CREATE INDEX entitlement_outbox_unpublished ON entitlement_outbox (seq) WHERE published_at IS NULL;

        -- One function per table: the key columns differ. Inserted rows name
        -- their owner; an update names the old owner too when it moved.
        CREATE FUNCTION entitlement_touch_subscriptions() RETURNS trigger LANGUAGE plpgsql AS $touch$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                INSERT INTO entitlement_touched
                    SELECT n.app_user_id, n.provider, 'subscription', n.subscription_id, false
                    FROM new_rows AS n WHERE n.app_user_id IS NOT NULL;
            ELSE
                INSERT INTO entitlement_touched
                    SELECT u.app_user_id, u.provider, 'subscription', u.subscription_id, u.transferred
                    FROM (
                        SELECT n.app_user_id, n.provider, n.subscription_id,
                            o.app_user_id IS DISTINCT FROM n.app_user_id AS transferred
                        FROM new_rows AS n JOIN old_rows AS o USING (provider, subscription_id)
                        UNION ALL
                        SELECT o.app_user_id, o.provider, o.subscription_id, true
                        FROM old_rows AS o JOIN new_rows AS n USING (provider, subscription_id)
                        WHERE o.app_user_id IS DISTINCT FROM n.app_user_id) AS u
                    WHERE u.app_user_id IS NOT NULL;
            END IF;
            RETURN NULL;
        END
        $touch$;

        CREATE FUNCTION entitlement_touch_orders() RETURNS trigger LANGUAGE plpgsql AS $touch$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                INSERT INTO entitlement_touched
                    SELECT n.app_user_id, n.provider, 'order', n.order_id, false
                    FROM new_rows AS n WHERE n.app_user_id IS NOT NULL;
            ELSE
                INSERT INTO entitlement_touched
                    SELECT u.app_user_id, u.provider, 'order', u.order_id, u.transferred
                    FROM (
                        SELECT n.app_user_id, n.provider, n.order_id, o.app_user_id IS DISTINCT FROM n.app_user_id AS transferred
                        FROM new_rows AS n JOIN old_rows AS o USING (provider, order_id)
                        UNION ALL
                        SELECT o.app_user_id, o.provider, o.order_id, true
                        FROM old_rows AS o JOIN new_rows AS n USING (provider, order_id)
                        WHERE o.app_user_id IS DISTINCT FROM n.app_user_id) AS u
                    WHERE u.app_user_id IS NOT NULL;
            END IF;
            RETURN NULL;
        END
        $touch$;

        -- Statement-level with transition tables: one insert per statement, not per row.
        CREATE TRIGGER subscriptions_touch_inserted AFTER INSERT ON subscriptions
            REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entitlement_touch_subscriptions();
        CREATE TRIGGER subscriptions_touch_updated AFTER UPDATE ON subscriptions
            REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entitlement_touch_subscriptions();
        CREATE TRIGGER orders_touch_inserted AFTER INSERT ON orders
            REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entitlement_touch_orders();
        CREATE TRIGGER orders_touch_updated AFTER UPDATE ON orders
            REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entitlement_touch_orders();

        -- The projector fills and empties the touched list (its one DELETE:
        -- the rows never outlive the transaction), keeps the announced states
        -- and writes the outbox; its relay marks rows published.
        GRANT SELECT, INSERT, DELETE ON entitlement_touched TO storefront_projector;
        GRANT SELECT, INSERT, UPDATE ON entitlement_states, entitlement_outbox TO storefront_projector;
        -- webhook-sender and operators read; the CLI's endpoints live in WebhookSenderSchema.
        GRANT SELECT ON entitlement_states, entitlement_outbox TO storefront_readonly;
        """

    /// Migration 11: a write that changed none of the facts a user's
    /// entitlements are computed from touches no one, so the outbox step
    /// skips users whose answer cannot have changed (a redelivered batch, a
    /// refresh of a subscription's portal links, the fold's own bookkeeping).
    ///
    /// An update counts when any column differs but those of
    /// ``touchIgnoredSubscriptionColumns``: the fold's position and the
    /// projection time, and what only the status answer shows (portal
    /// links). Every other column counts, also one added later, so a new
    /// fact of the entitlement rules is never missed. Inserts and owner
    /// moves always count.
    static let entitlementTouchFilter = """
        CREATE OR REPLACE FUNCTION entitlement_touch_subscriptions() RETURNS trigger LANGUAGE plpgsql AS $touch$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                INSERT INTO entitlement_touched
                    SELECT n.app_user_id, n.provider, 'subscription', n.subscription_id, false
                    FROM new_rows AS n WHERE n.app_user_id IS NOT NULL;
            ELSE
                INSERT INTO entitlement_touched
                    SELECT u.app_user_id, u.provider, 'subscription', u.subscription_id, u.transferred
                    FROM (
                        SELECT n.app_user_id, n.provider, n.subscription_id,
                            o.app_user_id IS DISTINCT FROM n.app_user_id AS transferred
                        FROM new_rows AS n JOIN old_rows AS o USING (provider, subscription_id)
                        WHERE to_jsonb(n) - '\(touchIgnoredSubscriptionColumns)'::text[]
                            IS DISTINCT FROM to_jsonb(o) - '\(touchIgnoredSubscriptionColumns)'::text[]
                        UNION ALL
                        SELECT o.app_user_id, o.provider, o.subscription_id, true
                        FROM old_rows AS o JOIN new_rows AS n USING (provider, subscription_id)
                        WHERE o.app_user_id IS DISTINCT FROM n.app_user_id) AS u
                    WHERE u.app_user_id IS NOT NULL;
            END IF;
            RETURN NULL;
        END
        $touch$;

        CREATE OR REPLACE FUNCTION entitlement_touch_orders() RETURNS trigger LANGUAGE plpgsql AS $touch$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                INSERT INTO entitlement_touched
                    SELECT n.app_user_id, n.provider, 'order', n.order_id, false
                    FROM new_rows AS n WHERE n.app_user_id IS NOT NULL;
            ELSE
                INSERT INTO entitlement_touched
                    SELECT u.app_user_id, u.provider, 'order', u.order_id, u.transferred
                    FROM (
                        SELECT n.app_user_id, n.provider, n.order_id, o.app_user_id IS DISTINCT FROM n.app_user_id AS transferred
                        FROM new_rows AS n JOIN old_rows AS o USING (provider, order_id)
                        WHERE to_jsonb(n) IS DISTINCT FROM to_jsonb(o)
                        UNION ALL
                        SELECT o.app_user_id, o.provider, o.order_id, true
                        FROM old_rows AS o JOIN new_rows AS n USING (provider, order_id)
                        WHERE o.app_user_id IS DISTINCT FROM n.app_user_id) AS u
                    WHERE u.app_user_id IS NOT NULL;
            END IF;
            RETURN NULL;
        END
        $touch$;
        """

    /// The `subscriptions` columns no entitlement is computed from (the
    /// resolver reads none of them): the fold's position, when the row was
    /// projected, and the portal links the status answer shows.
    static let touchIgnoredSubscriptionColumns =
        "{projected_at,last_event_key,last_event_at,last_event_rank,customer_portal_url,update_payment_method_url,portal_urls_seen_at}"
}
