import Postgres

/// The webhook sender's tables, migrated by their own ``PostgresMigrator``
/// (tracking table ``trackingTable``), by `storefront migrate` and, unless
/// `WEBHOOK_SENDER_MIGRATE=false`, by the service at start-up.
public enum WebhookSenderSchema {
    /// The table recording applied webhook-sender migrations.
    public static let trackingTable = "webhook_sender_schema_migrations"
    /// The service's group role (granted to its login user, as the others').
    public static let role = "storefront_webhook_sender"

    public static let migrations: [PostgresMigration] = [
        PostgresMigration(
            version: 1, name: "webhook endpoints and deliveries",
            sql: """
                -- Receivers the operator registers with `storefront endpoints add`.
                CREATE TABLE webhook_endpoints (
                    endpoint_id                 text PRIMARY KEY,
                    url                         text NOT NULL,
                    secret                      text NOT NULL,
                    previous_secret             text,
                    previous_secret_expires_at  timestamptz,
                    -- A JSON array of entitlement.* types; empty: every type.
                    event_types                 text NOT NULL DEFAULT '[]',
                    enabled                     boolean NOT NULL DEFAULT true,
                    created_at                  timestamptz NOT NULL DEFAULT now()
                );

                -- One row per (endpoint, event): the dedup guard (a redelivered
                -- record adds nothing), the queue and its outcome. seq orders a
                -- user's events per endpoint: only the oldest pending one is sent.
                CREATE TABLE webhook_deliveries (
                    endpoint_id      text NOT NULL REFERENCES webhook_endpoints ON DELETE CASCADE,
                    event_id         text NOT NULL,
                    seq              bigint GENERATED ALWAYS AS IDENTITY,
                    app_user_id      text NOT NULL,
                    event_type       text NOT NULL,
                    body             text NOT NULL,
                    state            text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'dead')),
                    attempts         integer NOT NULL DEFAULT 0,
                    next_attempt_at  timestamptz NOT NULL DEFAULT now(),
                    -- A sender working on it until then; another may take it after.
                    leased_until     timestamptz,
                    last_status      integer,
                    last_error       text,
                    created_at       timestamptz NOT NULL DEFAULT now(),
                    delivered_at     timestamptz,
                    PRIMARY KEY (endpoint_id, event_id)
                );
                CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
                CREATE INDEX webhook_deliveries_queue ON webhook_deliveries (endpoint_id, app_user_id, seq) WHERE state = 'pending';

                DO $roles$
                BEGIN
                    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'storefront_webhook_sender') THEN
                        BEGIN
                            CREATE ROLE storefront_webhook_sender NOLOGIN;
                        EXCEPTION WHEN duplicate_object OR unique_violation THEN
                            NULL; -- created meanwhile by the migration of another database
                        END;
                    END IF;
                END
                $roles$;
                -- The sender reads endpoints and works its queue; endpoints are the operator's.
                GRANT SELECT ON webhook_endpoints TO storefront_webhook_sender;
                GRANT SELECT, INSERT, UPDATE ON webhook_deliveries TO storefront_webhook_sender;
                GRANT SELECT ON webhook_sender_schema_migrations TO storefront_webhook_sender;
                """),
        PostgresMigration(
            version: 2, name: "retention of delivered and dead deliveries",
            sql: """
                -- The retention job (DeliveryRetention) finds each batch through these,
                -- and deletes delivered and dead rows only; pending rows are the queue.
                CREATE INDEX webhook_deliveries_delivered ON webhook_deliveries (delivered_at) WHERE state = 'delivered';
                CREATE INDEX webhook_deliveries_dead ON webhook_deliveries (next_attempt_at) WHERE state = 'dead';
                GRANT DELETE ON webhook_deliveries TO storefront_webhook_sender;
                """),
        PostgresMigration(version: 3, name: "the operators' admin role for endpoints", sql: adminRole),
        PostgresMigration(
            version: 4, name: "sendable heads, circuit breaker, private targets",
            sql: """
                -- The circuit breaker: failing_since is the first failed attempt
                -- since the last delivered one (NULL while healthy); an endpoint
                -- failing longer than WEBHOOK_SENDER_DISABLE_AFTER is disabled
                -- by the sender ('failing'), apart from the operator's 'operator'.
                ALTER TABLE webhook_endpoints
                    ADD COLUMN failing_since    timestamptz,
                    ADD COLUMN disabled_reason  text CHECK (disabled_reason IN ('operator', 'failing')),
                    ADD COLUMN disabled_at      timestamptz,
                    -- Endpoints added before the URL policy keep working: the
                    -- operator added them when every target was allowed.
                    ADD COLUMN allow_private    boolean NOT NULL DEFAULT true;
                ALTER TABLE webhook_endpoints ALTER COLUMN allow_private SET DEFAULT false;
                UPDATE webhook_endpoints SET disabled_reason = 'operator' WHERE NOT enabled;

                -- Only a head (the oldest pending delivery of its endpoint and
                -- ordering key) has a finite next_attempt_at; the rows behind it
                -- wait at 'infinity' until it is delivered or dead, and a claimed
                -- head moves to the end of its lease. So a claim reads only heads
                -- that are due, in the order it takes them, however many rows
                -- wait behind a head or in backoff.
                UPDATE webhook_deliveries AS d SET next_attempt_at = 'infinity'
                WHERE d.state = 'pending' AND EXISTS (
                    SELECT 1 FROM webhook_deliveries AS p
                    WHERE p.endpoint_id = d.endpoint_id AND p.app_user_id = d.app_user_id AND p.state = 'pending' AND p.seq < d.seq);
                UPDATE webhook_deliveries SET next_attempt_at = greatest(next_attempt_at, leased_until)
                WHERE state = 'pending' AND leased_until IS NOT NULL AND next_attempt_at < 'infinity';
                DROP INDEX webhook_deliveries_due;
                CREATE INDEX webhook_deliveries_heads ON webhook_deliveries (endpoint_id, next_attempt_at, seq)
                    WHERE state = 'pending' AND next_attempt_at < 'infinity';
                -- `storefront endpoints replay --since`: one endpoint's rows of a time range.
                CREATE INDEX webhook_deliveries_created ON webhook_deliveries (endpoint_id, created_at);

                -- The breaker is the sender's to trip; everything else of an endpoint stays the operator's.
                GRANT UPDATE (failing_since, enabled, disabled_reason, disabled_at) ON webhook_endpoints TO storefront_webhook_sender;
                """),
        PostgresMigration(version: 5, name: "the lines reported to Apple", sql: appStoreReportLines),
    ]

    /// The role `storefront endpoints` and `storefront api-keys` connect with
    /// (`STOREFRONT_ADMIN_DATABASE_URL`), so they need not be the schema owner.
    /// The checkout's migration 7 creates it too, whichever runs first.
    static let adminRole =
        PostgresMigration.createRoleIfMissing("storefront_admin") + """
            -- Endpoints are the operator's: add, list, enable, disable, rotate, remove
            -- (removing one deletes its queue through the foreign key, which runs as
            -- the table's owner: no DELETE on the deliveries). Of the queue, list
            -- counts it and replay puts dead deliveries back: only the columns
            -- replay resets may change, never a delivery's body, user or endpoint.
            GRANT SELECT, INSERT, UPDATE, DELETE ON webhook_endpoints TO storefront_admin;
            GRANT SELECT, UPDATE (state, attempts, next_attempt_at, leased_until, delivered_at) ON webhook_deliveries TO storefront_admin;
            """

    /// The migrator for ``migrations``; its advisory lock makes concurrent starts safe.
    public static func migrator() throws -> PostgresMigrator {
        try PostgresMigrator(migrations: migrations, tableName: trackingTable)
    }

    /// Applies pending migrations.
    /// - Returns: the versions this call applied.
    @discardableResult
    public static func migrate(pool: PostgresPool) async throws -> [Int] {
        try await migrator().migrate(pool: pool)
    }
}
