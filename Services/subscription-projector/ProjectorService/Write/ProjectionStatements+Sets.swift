import Postgres

/// The set-based forms of the statements that run for nearly every event
/// (the log insert, owner evidence, app users, provider customers) and of
/// the subscription upsert: each takes a whole batch as one array per
/// column (``PostgresBind/columns(_:types:)``: binary where the values
/// allow, so the server parses no array text) and runs once, where the
/// per-row forms cost one execution and one plan each. Their merge rules
/// are the per-row statements' own; where a key repeats within a batch and
/// the rule is an upsert (which may not touch a row twice in one
/// statement), the batch's rows of that key are first reduced to the one
/// the rule would keep after applying them one by one.
extension ProjectionStatements {
    /// `unnest($1::text[], $2::timestamptz[], ...) AS r(c1, c2, ...)`: one
    /// array parameter per column of `types`, read back as rows.
    static func unnest(_ types: [PostgresDataType]) -> String {
        let arrays = types.enumerated().map { "$\($0.offset + 1)::\($0.element)[]" }.joined(separator: ", ")
        let names = types.indices.map { "c\($0 + 1)" }.joined(separator: ", ")
        return "unnest(\(arrays)) AS r(\(names))"
    }

    /// ``event`` for a batch of plain deliveries (never reconciler snapshots,
    /// whose insert checks the log row by row): the rows in batch order, a
    /// dedup key already logged changes nothing, and the dedup keys that
    /// were new come back. The batch never repeats a key
    /// (``ProjectionPlan/repeatedInBatch``).
    static func events(_ rows: [[PostgresBind]]) throws(PostgresError) -> PostgresQuery {
        PostgresQuery(unsafeSQL: eventsSQL, binds: try PostgresBind.columns(rows, types: event.parameterTypes))
    }

    private static let eventsSQL = """
        INSERT INTO billing_events (\(eventColumns))
        SELECT * FROM \(unnest(event.parameterTypes))
        ON CONFLICT (dedup_key) DO NOTHING
        RETURNING dedup_key
        """

    /// The fold's result for every subscription a batch folded (one row each,
    /// so no row is updated twice by the one statement), in key order; the
    /// owner comes from `purchase_owners` (``subscriptionColumns``), by
    /// ``purchaseOwnerOfRow``: `purchase_owner()`'s own query, planned once for
    /// the statement instead of a PL/pgSQL call (and its executor start-up) per row.
    static func subscriptions(_ rows: [[PostgresBind]]) throws(PostgresError) -> PostgresQuery {
        PostgresQuery(unsafeSQL: subscriptionsSQL, binds: try PostgresBind.columns(rows, types: subscriptionParameterTypes))
    }

    private static let subscriptionsSQL = """
        INSERT INTO subscriptions (\(subscriptionColumns))
        SELECT c1, c2, \(purchaseOwnerOfRow), \((3...subscriptionParameterTypes.count).map { "c\($0)" }.joined(separator: ", "))
        FROM \(unnest(subscriptionParameterTypes))
        ON CONFLICT (provider, subscription_id) DO UPDATE SET
        \(subscriptionUpdate)
        """

    /// `purchase_owner(c1, 'subscription', c2)` as a subquery: the body of
    /// the function (migration 15, `ProjectionSchema.webFirst`) with its parameters
    /// replaced by the row's columns. The one app user named by the strongest
    /// kind of evidence (an anonymous id merged into a user counting as that
    /// user), or NULL when there is none or several.
    static let purchaseOwnerOfRow = """
        (SELECT CASE WHEN count(DISTINCT COALESCE(a.app_user_id, po.app_user_id)) = 1
                     THEN min(COALESCE(a.app_user_id, po.app_user_id)) END
            FROM purchase_owners AS po
            LEFT JOIN user_aliases AS a ON a.anonymous_id = po.app_user_id
            WHERE po.provider = c1 AND po.purchase_type = 'subscription' AND po.purchase_id = c2
                AND po.rank = (SELECT max(q.rank) FROM purchase_owners AS q
                               WHERE q.provider = c1 AND q.purchase_type = 'subscription' AND q.purchase_id = c2))
        """

    /// The per-row statements a batch runs as sets, in the order the runner
    /// runs them (before every other statement; ``ProjectionWriter/run(_:on:)``),
    /// each with its set-based form. ``event`` is apart: its form returns the new keys.
    static let setForms: [(statement: PostgresPreparedStatement, form: @Sendable ([[PostgresBind]]) throws(PostgresError) -> PostgresQuery)] = [
        (owner, owners), (appUser, appUsers), (customer, customers),
    ]

    /// ``owner`` for a batch, in batch order: `DO NOTHING` keeps the first
    /// evidence of a key, within the statement as across statements.
    static func owners(_ rows: [[PostgresBind]]) throws(PostgresError) -> PostgresQuery {
        PostgresQuery(unsafeSQL: ownersSQL, binds: try PostgresBind.columns(rows, types: owner.parameterTypes))
    }

    private static let ownersSQL = """
        INSERT INTO purchase_owners (provider, purchase_type, purchase_id, app_user_id, source, evidence)
        SELECT * FROM \(unnest(owner.parameterTypes))
        ON CONFLICT DO NOTHING
        """

    /// ``appUser`` for a batch: per user, the row with the newest non-null
    /// email by (time, value), the one the merge keeps whatever the order
    /// (or any row when none has an email, which then changes nothing).
    static func appUsers(_ rows: [[PostgresBind]]) throws(PostgresError) -> PostgresQuery {
        PostgresQuery(unsafeSQL: appUsersSQL, binds: try PostgresBind.columns(rows, types: appUser.parameterTypes))
    }

    private static let appUsersSQL = """
        INSERT INTO app_users (app_user_id, email, email_at)
        SELECT DISTINCT ON (c1) c1, c2, CASE WHEN c2 IS NULL THEN NULL ELSE c3 END
        FROM \(unnest(appUser.parameterTypes))
        ORDER BY c1, c2 IS NULL, c3 DESC NULLS LAST, c2 DESC
        \(appUserMerge)
        """

    /// ``customer`` for a batch: per customer, the newest non-null app user
    /// and the newest non-null email, each by (time, value), as the merge
    /// keeps them field by field whatever the order.
    static func customers(_ rows: [[PostgresBind]]) throws(PostgresError) -> PostgresQuery {
        PostgresQuery(unsafeSQL: customersSQL, binds: try PostgresBind.columns(rows, types: customer.parameterTypes))
    }

    private static let customersSQL = """
        WITH r AS (SELECT * FROM \(unnest(customer.parameterTypes))),
            users AS (
                SELECT DISTINCT ON (c1, c2) c1, c2, c3, c5 FROM r WHERE c3 IS NOT NULL ORDER BY c1, c2, c5 DESC NULLS LAST, c3 DESC),
            emails AS (
                SELECT DISTINCT ON (c1, c2) c1, c2, c4, c5 FROM r WHERE c4 IS NOT NULL ORDER BY c1, c2, c5 DESC NULLS LAST, c4 DESC)
        INSERT INTO provider_customers AS c (provider, customer_id, app_user_id, email, app_user_at, email_at)
        SELECT k.c1, k.c2, u.c3, e.c4, u.c5, e.c5
        FROM (SELECT DISTINCT c1, c2 FROM r) AS k
            LEFT JOIN users AS u ON u.c1 = k.c1 AND u.c2 = k.c2
            LEFT JOIN emails AS e ON e.c1 = k.c1 AND e.c2 = k.c2
        ORDER BY k.c1, k.c2
        \(customerMerge)
        """
}
