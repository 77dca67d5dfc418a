import Postgres
import ProviderBudget

/// The tables the checkout service owns, migrated by its own
/// ``PostgresMigrator`` whose tracking table (``trackingTable``) is separate
/// from the projection's, so the two never collide.
public enum CheckoutSchema {
    /// Name of the table recording applied checkout migrations.
    public static let trackingTable = "checkout_schema_migrations"

    /// The migrations, in order.
    public static let migrations: [PostgresMigration] = [
        PostgresMigration(
            version: 1, name: "idempotency keys",
            sql: """
                -- One row per (app user, Idempotency-Key): 'pending' while the first
                -- request talks to the provider, then 'completed' with its answer.
                CREATE TABLE checkout_idempotency_keys (
                    app_user_id      text NOT NULL,
                    idempotency_key  text NOT NULL,
                    request_hash     text NOT NULL,
                    state            text NOT NULL CHECK (state IN ('pending', 'completed')),
                    checkout_id      text NOT NULL,
                    response         text,
                    created_at       timestamptz NOT NULL DEFAULT now(),
                    completed_at     timestamptz,
                    PRIMARY KEY (app_user_id, idempotency_key)
                );
                CREATE INDEX checkout_idempotency_keys_created ON checkout_idempotency_keys (created_at);
                """),
        PostgresMigration(
            version: 2, name: "the checkout's database role",
            sql: """
                -- The checkout's group role (also created by the projection's migration 6,
                -- whichever runs first; roles belong to the cluster, so another database's
                -- migration may create it meanwhile). It keeps its idempotency keys:
                -- claims, answers, and the sweep of old ones.
                DO $roles$
                BEGIN
                    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'storefront_checkout') THEN
                        BEGIN
                            CREATE ROLE storefront_checkout NOLOGIN;
                        EXCEPTION WHEN duplicate_object OR unique_violation THEN
                            NULL; -- created meanwhile by the migration of another database
                        END;
                    END IF;
                END
                $roles$;
                GRANT SELECT, INSERT, UPDATE, DELETE ON checkout_idempotency_keys TO storefront_checkout;
                -- Read at start-up to see that these migrations are applied.
                GRANT SELECT ON checkout_schema_migrations TO storefront_checkout;
                """),
        PostgresMigration(
            version: 3, name: "per-user quotas and the shared provider ledger",
            sql: """
                -- Requests per (app user, action) in fixed windows (UserQuotaPolicy); one
                -- conditional upsert per window and request, ended windows swept.
                CREATE TABLE checkout_user_quotas (
                    app_user_id     text NOT NULL,
                    action          text NOT NULL,
                    window_seconds  integer NOT NULL CHECK (window_seconds > 0),
                    window_start    timestamptz NOT NULL,
                    used            integer NOT NULL CHECK (used >= 0),
                    PRIMARY KEY (app_user_id, action, window_seconds, window_start)
                );
                CREATE INDEX checkout_user_quotas_window_start ON checkout_user_quotas (window_start);
                GRANT SELECT, INSERT, UPDATE, DELETE ON checkout_user_quotas TO storefront_checkout;
                """ + ProviderLedgerSchema.migrationSQL),
        PostgresMigration(
            version: 4, name: "API keys for the app's own servers",
            sql: """
                -- One row per key (`storefront api-keys create`): the public key id that
                -- names it, the SHA-256 of the whole key (never the key), its scopes
                -- (space-separated), when it was revoked and when it was last used.
                CREATE TABLE checkout_api_keys (
                    key_id        text PRIMARY KEY,
                    name          text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
                    scopes        text NOT NULL,
                    key_hash      bytea NOT NULL CHECK (length(key_hash) = 32),
                    created_at    timestamptz NOT NULL DEFAULT now(),
                    revoked_at    timestamptz,
                    last_used_at  timestamptz
                );
                -- The service reads keys and records their use; creating and revoking
                -- them is the operator's (the CLI, as the schema owner).
                GRANT SELECT, UPDATE (last_used_at) ON checkout_api_keys TO storefront_checkout;
                """),
        PostgresMigration(
            version: 5, name: "redemption links and anonymous-user merges",
            sql: """
                -- One row per redemption link issued (docs/web-first.md): the SHA-256 of
                -- the token (never the token), the purchase it is bound to, when it
                -- expires, and who redeemed it. Several links may name one purchase (the
                -- completion page's, resends); the first redemption decides.
                CREATE TABLE checkout_redemptions (
                    redemption_id  uuid PRIMARY KEY,
                    token_hash     bytea NOT NULL UNIQUE CHECK (length(token_hash) = 32),
                    provider       text NOT NULL,
                    purchase_type  text NOT NULL CHECK (purchase_type IN ('subscription', 'order')),
                    purchase_id    text NOT NULL,
                    checkout_id    text,
                    via            text NOT NULL CHECK (via IN ('completion_page', 'resend')),
                    created_at     timestamptz NOT NULL DEFAULT now(),
                    expires_at     timestamptz NOT NULL,
                    redeemed_by    text,
                    redeemed_at    timestamptz
                );
                CREATE INDEX checkout_redemptions_purchase ON checkout_redemptions (provider, purchase_type, purchase_id);
                CREATE INDEX checkout_redemptions_checkout ON checkout_redemptions (checkout_id) WHERE checkout_id IS NOT NULL;
                CREATE INDEX checkout_redemptions_expires ON checkout_redemptions (expires_at);
                -- An anonymous user merged into a signed-in one (POST /api/users/alias),
                -- recorded here first so the answer is authoritative; the projector
                -- records the same merge from the command.
                CREATE TABLE checkout_user_merges (
                    anonymous_id  text PRIMARY KEY,
                    app_user_id   text NOT NULL,
                    merged_at     timestamptz NOT NULL DEFAULT now()
                );
                GRANT SELECT, INSERT, UPDATE, DELETE ON checkout_redemptions, checkout_user_merges TO storefront_checkout;
                """),
        PostgresMigration(
            version: 6, name: "API key expiry",
            sql: """
                -- From when a key is refused, as a revoked one is (`api-keys create
                -- --expires-in 90d`); null never expires. The service's SELECT on the
                -- table covers the new column; only the operator sets it.
                ALTER TABLE checkout_api_keys ADD COLUMN expires_at timestamptz;
                ALTER TABLE checkout_api_keys ADD CONSTRAINT checkout_api_keys_expiry_after_creation
                    CHECK (expires_at IS NULL OR expires_at > created_at);
                """),
        PostgresMigration(version: 7, name: "the operators' admin role for API keys", sql: adminRole),
        PostgresMigration(
            version: 8, name: "external purchase tokens",
            sql: """
                -- Who first sent each of Apple's external purchase tokens with a checkout
                -- (docs/app-store.md): a token is refused for any other user. Kept until
                -- keep_until (the token's own end, else a year), then pruned.
                CREATE TABLE checkout_external_purchase_tokens (
                    external_purchase_id  text PRIMARY KEY CHECK (length(external_purchase_id) BETWEEN 1 AND 128),
                    owner                 text NOT NULL,
                    first_used_at         timestamptz NOT NULL DEFAULT now(),
                    keep_until            timestamptz NOT NULL
                );
                CREATE INDEX checkout_external_purchase_tokens_keep_until ON checkout_external_purchase_tokens (keep_until);
                GRANT SELECT, INSERT, UPDATE, DELETE ON checkout_external_purchase_tokens TO storefront_checkout;
                """),
        PostgresMigration(version: 9, name: "provider budget taken in batches", sql: ProviderLedgerSchema.batchGrantsSQL),
    ]

    /// The role `storefront api-keys` and `storefront endpoints` connect with
    /// (`STOREFRONT_ADMIN_DATABASE_URL`), so they need not be the schema owner.
    /// The webhook sender's migration 3 creates it too, whichever runs first.
    static let adminRole =
        PostgresMigration.createRoleIfMissing("storefront_admin") + """
            -- It makes, lists and revokes keys. Of an existing key only revoked_at
            -- may change: its scopes, hash and expiry are fixed when it is made, and
            -- a revoked key stays on record (no DELETE).
            GRANT SELECT, INSERT, UPDATE (revoked_at) ON checkout_api_keys TO storefront_admin;
            """

    /// Applies pending checkout migrations (safe to run from several processes
    /// at once). With every migration applied it runs no DDL, so the
    /// checkout's own role (`storefront_checkout`, no DDL rights) may call it
    /// at start-up; `storefront migrate` applies them as the schema owner.
    /// - Returns: the versions applied now.
    @discardableResult
    public static func migrate(pool: PostgresPool) async throws -> [Int] {
        try await PostgresMigrator(migrations: migrations, tableName: trackingTable).migrate(pool: pool)
    }
}
