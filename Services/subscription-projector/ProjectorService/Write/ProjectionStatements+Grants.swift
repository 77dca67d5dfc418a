import Postgres

extension ProjectionStatements {
    private static let t = PostgresDataType.text, ts = PostgresDataType.timestamptz

    /// A promotional grant (``GrantCommand``): written once (a redelivery
    /// changes nothing), and its user touched so the outbox announces it.
    /// Affects one row when new, none when already recorded.
    static let grantGiven = PostgresPreparedStatement(
        name: "projector_grant_given_v1",
        sql: """
            WITH given AS (
                INSERT INTO entitlement_grants (
                    grant_id, app_user_id, entitlement, starts_at, expires_at, granted_by, grant_command_id, reason, requested_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                ON CONFLICT DO NOTHING
                RETURNING app_user_id, grant_id)
            INSERT INTO entitlement_touched (app_user_id, provider, purchase_type, purchase_id, transferred)
            SELECT app_user_id, 'storefront', 'grant', grant_id, false FROM given
            """, parameterTypes: [t, t, t, ts, ts, t, t, t, ts])

    /// A revocation: ends the user's grant at the time it was asked for, once
    /// (the first revocation stands). Affects one row when it ended a grant,
    /// none for a grant already revoked, unknown, or another user's.
    static let grantRevoked = PostgresPreparedStatement(
        name: "projector_grant_revoked_v1",
        sql: """
            WITH revoked AS (
                UPDATE entitlement_grants
                SET revoked_at = $3, revoked_by = $4, revoke_command_id = $5, revoke_reason = $6
                WHERE grant_id = $1 AND app_user_id = $2 AND revoked_at IS NULL
                RETURNING app_user_id, grant_id)
            INSERT INTO entitlement_touched (app_user_id, provider, purchase_type, purchase_id, transferred)
            SELECT app_user_id, 'storefront', 'grant', grant_id, false FROM revoked
            """, parameterTypes: [t, t, ts, t, t, t])
}
