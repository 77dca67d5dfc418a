/// The ledger's tables, kept beside the code that reads them. The checkout
/// owns and migrates them (its migration 3: the checkout is the one service
/// that always has a database and a migrator); the reconciler's role is
/// granted read and write on these two tables only.
public enum ProviderLedgerSchema {
    /// Never edit: this text is the checkout's migration 3, checksummed where it
    /// was applied; a change goes into a new checkout migration.
    ///
    /// Creates the tables and grants the two service roles (which the
    /// checkout's migration 2 and the projection's migration 6 create; this
    /// creates the reconciler's if neither ran in this cluster yet).
    public static let migrationSQL = """
        -- Requests sent to each provider per ten-second window, by every service
        -- and replica using the provider's key (see ProviderBudgetShares).
        CREATE TABLE provider_request_ledger (
            provider      text NOT NULL,
            window_start  timestamptz NOT NULL,
            used          integer NOT NULL CHECK (used >= 0),
            PRIMARY KEY (provider, window_start)
        );
        -- A 429 from the provider holds every replica until paused_until.
        CREATE TABLE provider_request_pauses (
            provider      text PRIMARY KEY,
            paused_until  timestamptz NOT NULL
        );
        DO $roles$
        BEGIN
            IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'storefront_reconciler') THEN
                BEGIN
                    CREATE ROLE storefront_reconciler NOLOGIN;
                EXCEPTION WHEN duplicate_object OR unique_violation THEN
                    NULL; -- created meanwhile by the migration of another database
                END;
            END IF;
        END
        $roles$;
        GRANT SELECT, INSERT, UPDATE, DELETE ON provider_request_ledger, provider_request_pauses
            TO storefront_checkout, storefront_reconciler;
        """

    /// Never edit: the checkout's migration 9. What the last take added to a
    /// window, so one statement can grant a batch and say how much of it fit
    /// (``PostgresProviderLedgerStore``); a default, so no rewrite of the table.
    public static let batchGrantsSQL = """
        ALTER TABLE provider_request_ledger ADD COLUMN last_grant integer NOT NULL DEFAULT 1 CHECK (last_grant >= 0);
        """
}
