extension ProjectionSchema {
    /// Migration 17: promotional grants (docs/grants.md).
    ///
    /// `entitlement_grants` is both the state and the audit of grants: a row
    /// is written once when the grant is given (who asked, why, by which
    /// command) and updated once when it is revoked (who, when, by which
    /// command); rows are never deleted, so support's every act stays on
    /// record. A revocation that arrives for a grant id the table does not
    /// hold changes nothing (its record stays on the topic).
    ///
    /// The checkout reads it (the entitlement answers, and whether a grant
    /// exists before publishing a revocation); the projector alone writes it.
    static let grants = """
        CREATE TABLE entitlement_grants (
            grant_id           text PRIMARY KEY,
            app_user_id        text NOT NULL,
            entitlement        text NOT NULL,
            starts_at          timestamptz NOT NULL,
            expires_at         timestamptz NOT NULL CHECK (expires_at > starts_at),
            granted_by         text NOT NULL,
            grant_command_id   text NOT NULL UNIQUE,
            reason             text,
            requested_at       timestamptz NOT NULL,
            recorded_at        timestamptz NOT NULL DEFAULT now(),
            revoked_at         timestamptz,
            revoked_by         text,
            revoke_command_id  text,
            revoke_reason      text
        );
        CREATE INDEX entitlement_grants_app_user ON entitlement_grants (app_user_id, starts_at DESC);

        GRANT SELECT, INSERT, UPDATE ON entitlement_grants TO storefront_projector;
        GRANT SELECT ON entitlement_grants TO storefront_checkout, storefront_readonly;
        """
}
