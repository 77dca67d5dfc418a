extension ProjectionSchema {
    /// Migration 13: the touch triggers of migrations 9 and 11 pair each
    /// updated row's old and new version by grouping on the key, not by a
    /// join.
    ///
    /// PL/pgSQL plans a statement with no parameters once per session and
    /// keeps that plan, sized by the transition tables of the first call.
    /// The projector's first batches are small, so the join of `old_rows`
    /// and `new_rows` was kept as a nested loop and every later statement
    /// paid for each pair of rows: after a 1-row update in the same session,
    /// updating 500 / 1,000 / 2,000 subscriptions took about 270 ms / 1.0 s /
    /// 3.5 s in the trigger (a profile of the projector catching up had 63%
    /// of PostgreSQL's samples there). Grouping has no plan whose cost grows
    /// with pairs: the same updates take about 40 / 70 / 115 ms, as a fresh
    /// plan of either form does.
    ///
    /// What is touched does not change: for a key present on both sides,
    /// the new owner when the facts differ (for subscriptions, every column
    /// but ``touchIgnoredSubscriptionColumns``; for orders, every column),
    /// marked transferred when the owner moved, and the old owner when it
    /// moved; never a NULL owner.
    static let entitlementTouchByKey = """
        CREATE OR REPLACE FUNCTION entitlement_touch_subscriptions() RETURNS trigger LANGUAGE plpgsql AS $touch$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                INSERT INTO entitlement_touched
                    SELECT n.app_user_id, n.provider, 'subscription', n.subscription_id, false
                    FROM new_rows AS n WHERE n.app_user_id IS NOT NULL;
            ELSE
                INSERT INTO entitlement_touched
                    SELECT t.app_user_id, p.provider, 'subscription', p.subscription_id, t.transferred
                    FROM (
                        SELECT provider, subscription_id,
                            (array_agg(app_user_id) FILTER (WHERE is_new))[1] AS new_owner,
                            (array_agg(app_user_id) FILTER (WHERE NOT is_new))[1] AS old_owner,
                            count(DISTINCT facts) > 1 AS changed
                        FROM (
                            SELECT true AS is_new, n.provider, n.subscription_id, n.app_user_id,
                                to_jsonb(n) - '\(touchIgnoredSubscriptionColumns)'::text[] AS facts
                            FROM new_rows AS n
                            UNION ALL
                            SELECT false, o.provider, o.subscription_id, o.app_user_id,
                                to_jsonb(o) - '\(touchIgnoredSubscriptionColumns)'::text[]
                            FROM old_rows AS o) AS sides
                        GROUP BY provider, subscription_id
                        HAVING bool_or(is_new) AND bool_or(NOT is_new)) AS p
                    CROSS JOIN LATERAL (VALUES
                        (p.new_owner, p.old_owner IS DISTINCT FROM p.new_owner, p.changed),
                        (p.old_owner, true, p.old_owner IS DISTINCT FROM p.new_owner)) AS t(app_user_id, transferred, emit)
                    WHERE t.emit AND t.app_user_id IS NOT NULL;
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
                    SELECT t.app_user_id, p.provider, 'order', p.order_id, t.transferred
                    FROM (
                        SELECT provider, order_id,
                            (array_agg(app_user_id) FILTER (WHERE is_new))[1] AS new_owner,
                            (array_agg(app_user_id) FILTER (WHERE NOT is_new))[1] AS old_owner,
                            count(DISTINCT facts) > 1 AS changed
                        FROM (
                            SELECT true AS is_new, n.provider, n.order_id, n.app_user_id, to_jsonb(n) AS facts FROM new_rows AS n
                            UNION ALL
                            SELECT false, o.provider, o.order_id, o.app_user_id, to_jsonb(o) FROM old_rows AS o) AS sides
                        GROUP BY provider, order_id
                        HAVING bool_or(is_new) AND bool_or(NOT is_new)) AS p
                    CROSS JOIN LATERAL (VALUES
                        (p.new_owner, p.old_owner IS DISTINCT FROM p.new_owner, p.changed),
                        (p.old_owner, true, p.old_owner IS DISTINCT FROM p.new_owner)) AS t(app_user_id, transferred, emit)
                    WHERE t.emit AND t.app_user_id IS NOT NULL;
            END IF;
            RETURN NULL;
        END
        $touch$;
        """
}
