import Foundation
import BillingModel
import Postgres

/// The ledger in PostgreSQL: one row per (provider, window) counting the
/// requests sent in it, and one row per provider holding a pause after a 429.
///
/// The tables are created by ``ProviderLedgerSchema`` (applied as the
/// checkout's migration 3); the checkout's and the reconciler's roles may
/// read and write them and nothing else of each other's.
public struct PostgresProviderLedgerStore: ProviderLedgerStore {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public func take(provider: Provider, window: Date, ceiling: Int, at now: Date) async throws -> LedgerDecision {
        // One statement: no count is taken while a pause holds, and the
        // conditional upsert both checks and counts under the row's lock, so
        // concurrent replicas never overshoot the ceiling together.
        let rows = try await pool.query(
            """
            WITH pause AS (
                SELECT paused_until FROM provider_request_pauses
                WHERE provider = \(provider.rawValue) AND paused_until > \(now)
            ), counted AS (
                INSERT INTO provider_request_ledger (provider, window_start, used)
                SELECT \(provider.rawValue), \(window), 1 WHERE NOT EXISTS (SELECT FROM pause)
                ON CONFLICT (provider, window_start) DO UPDATE SET used = provider_request_ledger.used + 1
                WHERE provider_request_ledger.used < \(ceiling)
                RETURNING used
            )
            SELECT EXISTS (SELECT FROM counted), (SELECT paused_until FROM pause)
            """)
        guard let row = rows.first else { return .windowFull }
        let (granted, pausedUntil) = try row.decode((Bool, Date?).self)
        if granted { return .granted }
        if let pausedUntil { return .paused(until: pausedUntil) }
        return .windowFull
    }

    public func pause(provider: Provider, until: Date) async throws {
        try await pool.execute(
            """
            INSERT INTO provider_request_pauses (provider, paused_until) VALUES (\(provider.rawValue), \(until))
            ON CONFLICT (provider) DO UPDATE
            SET paused_until = GREATEST(provider_request_pauses.paused_until, EXCLUDED.paused_until)
            """)
    }
}
