import Postgres

/// The tables the checkout service owns, migrated by its own
/// ``PostgresMigrator`` whose tracking table (``trackingTable``) is separate
/// from the projection's, so the two never collide.
public enum CheckoutSchema {
    /// Name of the table recording applied checkout migrations.
    public static let trackingTable = "checkout_schema_migrations"

    /// The migrations, in order.
    public static let migrations: [PostgresMigration] = [
        PostgresMigration(version: 1, name: "idempotency keys", sql: """
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
    ]

    /// Applies pending checkout migrations (safe to run from several processes at once).
    /// - Returns: the versions applied now.
    @discardableResult
    public static func migrate(pool: PostgresPool) async throws -> [Int] {
        try await PostgresMigrator(migrations: migrations, tableName: trackingTable).migrate(pool: pool)
    }
}
