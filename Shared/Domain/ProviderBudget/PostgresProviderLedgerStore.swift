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

    public func take(provider: Provider, window: Date, ceiling: Int, upTo count: Int, at now: Date) async throws -> LedgerDecision {
        // One statement: no count is taken while a pause holds, and the
        // conditional upsert both checks and counts under the row's lock, so
        // concurrent replicas never overshoot the ceiling together. An
        // UPDATE's SET reads the row as it was, so `last_grant` is what this
        // statement added (RETURNING sees only the new row).
        let wanted = max(1, count)
        let rows = try await pool.query(
            """
            WITH pause AS (
                SELECT paused_until FROM provider_request_pauses
                WHERE provider = \(provider.rawValue) AND paused_until > \(now)
            ), counted AS (
                INSERT INTO provider_request_ledger (provider, window_start, used, last_grant)
                SELECT \(provider.rawValue), \(window), LEAST(\(wanted), \(ceiling)), LEAST(\(wanted), \(ceiling))
                WHERE NOT EXISTS (SELECT FROM pause)
                ON CONFLICT (provider, window_start) DO UPDATE
                SET used = LEAST(provider_request_ledger.used + \(wanted), \(ceiling)),
                    last_grant = LEAST(\(wanted), \(ceiling) - provider_request_ledger.used)
                WHERE provider_request_ledger.used < \(ceiling)
                RETURNING last_grant
            )
            SELECT (SELECT last_grant FROM counted), (SELECT paused_until FROM pause)
            """)
        guard let row = rows.first else { return .windowFull }
        let (granted, pausedUntil) = try row.decode((Int?, Date?).self)
        if let granted, granted > 0 { return .granted(granted) }
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
