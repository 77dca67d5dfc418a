import Timing
import Foundation
import Postgres

/// The circuit breaker's state in `webhook_endpoints` (migration 4), kept
/// in PostgreSQL so every replica judges the same streak and a restart forgets nothing.
extension EndpointStore {
    /// What a failed attempt made of its endpoint.
    public enum FailureVerdict: Sendable, Hashable {
        /// Failing since this time, not long enough to disable it.
        case failing(since: Date)
        /// This failure disabled it: failing since this time, longer than allowed.
        case disabled(failingSince: Date)
        /// Disabled already, or gone.
        case unchanged
    }

    /// Ends the endpoint's failing streak after a delivered attempt (no write while it has none).
    public func recordSuccess(_ id: String, on connection: PostgresConnection) async throws {
        _ = try await connection.execute(
            "UPDATE webhook_endpoints SET failing_since = NULL WHERE endpoint_id = \(id) AND failing_since IS NOT NULL")
    }

    /// Starts or continues the endpoint's failing streak after a failed
    /// attempt, and disables it (`disabled_reason = 'failing'`) once the
    /// streak is older than `disableAfter`. One statement: of two replicas'
    /// failures, only one disables it.
    public func recordFailure(_ id: String, disableAfter: Duration, on connection: PostgresConnection) async throws -> FailureVerdict {
        let rows = try await connection.query(
            """
            WITH old AS (
                SELECT endpoint_id, enabled,
                    enabled AND COALESCE(failing_since <= now() - make_interval(secs => \(disableAfter.inSeconds)), false) AS trip
                FROM webhook_endpoints WHERE endpoint_id = \(id) FOR NO KEY UPDATE)
            UPDATE webhook_endpoints AS e SET
                failing_since = COALESCE(e.failing_since, now()),
                enabled = e.enabled AND NOT old.trip,
                disabled_reason = CASE WHEN old.trip THEN 'failing' ELSE e.disabled_reason END,
                disabled_at = CASE WHEN old.trip THEN now() ELSE e.disabled_at END
            FROM old WHERE e.endpoint_id = old.endpoint_id
            RETURNING old.enabled, old.trip, e.failing_since
            """)
        guard let row = rows.first else { return .unchanged }
        let (wasEnabled, tripped, since) = try row.decode((Bool, Bool, Date).self)
        if tripped { return .disabled(failingSince: since) }
        return wasEnabled ? .failing(since: since) : .unchanged
    }
}
