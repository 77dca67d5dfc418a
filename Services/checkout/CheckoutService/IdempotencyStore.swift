import Timing
import Foundation
import Postgres
import Synchronization

/// Idempotency records for `POST /api/create-checkout`, in PostgreSQL, keyed
/// by (app user id, `Idempotency-Key`).
///
/// The first request with a key inserts a `pending` row (INSERT … ON CONFLICT
/// DO NOTHING decides the winner atomically, so concurrent requests never both
/// call the provider), calls the provider, then stores its answer. Others with
/// the same key and body wait for that answer; a different body is refused.
struct IdempotencyStore: Sendable {
    /// What ``begin(user:key:requestHash:checkoutID:)`` decided.
    enum Claim: Sendable, Equatable {
        /// This request owns the key: go on and create the checkout.
        case acquired
        /// A completed request with the same body: replay this answer.
        case replay(String)
        /// The key was used with a different body.
        case mismatch
        /// Another request with this key is still running after the wait.
        case inProgress
    }

    let pool: PostgresPool
    let ttl: Duration
    let wait: Duration
    /// A pending row older than this is a crashed request; it may be taken over.
    let staleAfter: Duration = .seconds(120)
    /// First pause between looks at a pending row; doubles up to ``maximumPollInterval``.
    let pollInterval: Duration = .milliseconds(50)
    let maximumPollInterval: Duration = .milliseconds(800)
    /// Requests of one user that may wait on pending keys at once in this
    /// process; more are answered "in progress" at once, so one user's
    /// parallel retries cannot hold the database pool.
    static let maximumWaitersPerUser = 16
    /// Waiting requests per user.
    let waiters = WaiterCounts()

    func begin(user: String, key: String, requestHash: String, checkoutID: String) async throws -> Claim {
        let deadline = ContinuousClock.now + wait
        var pause = pollInterval
        var isWaiting = false
        defer { if isWaiting { waiters.leave(user) } }
        while true {
            let inserted = try await pool.query(
                """
                INSERT INTO checkout_idempotency_keys (app_user_id, idempotency_key, request_hash, state, checkout_id)
                VALUES (\(user), \(key), \(requestHash), 'pending', \(checkoutID))
                ON CONFLICT (app_user_id, idempotency_key) DO NOTHING
                RETURNING checkout_id
                """)
            if !inserted.isEmpty { return .acquired }

            let rows = try await pool.query(
                """
                SELECT request_hash, state, response,
                       created_at < now() - make_interval(secs => \(ttl.inSeconds)) AS expired,
                       state = 'pending' AND created_at < now() - make_interval(secs => \(staleAfter.inSeconds)) AS stale
                FROM checkout_idempotency_keys
                WHERE app_user_id = \(user) AND idempotency_key = \(key)
                """)
            guard let row = rows.first else { continue } // released meanwhile: try to take it
            let (hash, state, response, expired, stale) = try row.decode((String, String, String?, Bool, Bool).self)
            if expired || stale {
                // Forget the old record (only if it is still the one we saw) and compete again.
                try await pool.execute(
                    """
                    DELETE FROM checkout_idempotency_keys
                    WHERE app_user_id = \(user) AND idempotency_key = \(key) AND request_hash = \(hash) AND state = \(state)
                      AND (created_at < now() - make_interval(secs => \(ttl.inSeconds))
                           OR (state = 'pending' AND created_at < now() - make_interval(secs => \(staleAfter.inSeconds))))
                    """)
                continue
            }
            guard hash == requestHash else { return .mismatch }
            if state == "completed", let response { return .replay(response) }
            guard ContinuousClock.now < deadline else { return .inProgress }
            if !isWaiting {
                guard waiters.enter(user, limit: Self.maximumWaitersPerUser) else { return .inProgress }
                isWaiting = true
            }
            try await Task.sleep(for: pause)
            pause = min(pause * 2, maximumPollInterval)
        }
    }

    /// Stores the answer of the request that owns the key.
    func complete(user: String, key: String, response: String) async throws {
        try await pool.execute(
            """
            UPDATE checkout_idempotency_keys SET state = 'completed', response = \(response), completed_at = now()
            WHERE app_user_id = \(user) AND idempotency_key = \(key) AND state = 'pending'
            """)
    }

    /// Releases the key after a failure, so the client may retry with it.
    func release(user: String, key: String, checkoutID: String) async {
        _ = try? await pool.execute(
            """
            DELETE FROM checkout_idempotency_keys
            WHERE app_user_id = \(user) AND idempotency_key = \(key) AND state = 'pending' AND checkout_id = \(checkoutID)
            """)
    }
}

/// How many requests of each user are waiting on a pending idempotency key.
final class WaiterCounts: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    /// Counts the user in unless `limit` of theirs already wait.
    func enter(_ user: String, limit: Int) -> Bool {
        counts.withLock { counts in
            let current = counts[user, default: 0]
            guard current < limit else { return false }
            counts[user] = current + 1
            return true
        }
    }

    func leave(_ user: String) {
        counts.withLock { counts in
            let remaining = counts[user, default: 1] - 1
            counts[user] = remaining > 0 ? remaining : nil
        }
    }
}
