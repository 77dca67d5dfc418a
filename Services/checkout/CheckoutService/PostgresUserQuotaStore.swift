import Foundation
import Postgres

/// Per-user quota counters in the checkout's `checkout_user_quotas` table
/// (checkout migration 3): one row per (user, action, window length, window
/// start), shared by every checkout replica.
struct PostgresUserQuotaStore: UserQuotaStore {
    let pool: PostgresPool

    func consume(
        user: String, action: UserQuotaPolicy.Action, limits: [UserQuotaPolicy.Limit], at now: Date
    ) async throws
        -> UserQuotaPolicy.Limit?
    {
        guard !limits.isEmpty else { return nil }
        // One conditional upsert per window, in one transaction: a refusal by
        // any window throws, which rolls back what the others counted, so a
        // refused request never uses up quota.
        do {
            try await pool.withTransaction { connection in
                for limit in limits {
                    let seconds = Int(limit.window.components.seconds)
                    let counted = try await connection.query(
                        """
                        INSERT INTO checkout_user_quotas (app_user_id, action, window_seconds, window_start, used)
                        VALUES (\(user), \(action.rawValue), \(seconds), \(QuotaWindow.start(of: now, window: limit.window)), 1)
                        ON CONFLICT (app_user_id, action, window_seconds, window_start)
                        DO UPDATE SET used = checkout_user_quotas.used + 1
                        WHERE checkout_user_quotas.used < \(limit.requests)
                        RETURNING used
                        """)
                    if counted.isEmpty { throw WindowFull(limit: limit) }
                }
            }
            return nil
        } catch let full as WindowFull {
            return full.limit
        }
    }

    /// Unwinds the transaction when a window is full.
    private struct WindowFull: Error {
        let limit: UserQuotaPolicy.Limit
    }
}
