import Foundation
import Entitlements
import Postgres

/// What `storefront report` says of promotional grants (docs/grants.md):
/// counted apart from revenue, per entitlement, never as money.
public enum GrantLog {
    /// One entitlement's grants in a period.
    public struct Row: Sendable, Hashable {
        public var entitlement: String
        /// Grants that started in the period.
        public var given: Int
        /// Grants revoked in the period.
        public var revoked: Int
        /// Grants giving access at the period's end (or at `asOf`, if earlier).
        public var runningAtEnd: Int

        public init(entitlement: String, given: Int, revoked: Int, runningAtEnd: Int) {
            self.entitlement = entitlement
            self.given = given
            self.revoked = revoked
            self.runningAtEnd = runningAtEnd
        }
    }

    /// Every entitlement with a grant given, revoked or running in `period`, by identifier.
    /// - Throws: ``PostgresError``.
    public static func report(_ period: ReportPeriod, pool: PostgresPool, asOf: Date) async throws -> [Row] {
        let end = min(asOf, period.to)
        return try await pool.query(
            """
            SELECT entitlement, given, revoked, running FROM (
                SELECT entitlement,
                    count(*) FILTER (WHERE starts_at >= \(period.from) AND starts_at < \(end)) AS given,
                    count(*) FILTER (WHERE revoked_at >= \(period.from) AND revoked_at < \(end)) AS revoked,
                    count(*) FILTER (WHERE starts_at <= \(end) AND expires_at > \(end)
                                       AND (revoked_at IS NULL OR revoked_at > \(end))) AS running
                FROM entitlement_grants GROUP BY entitlement) AS counted
            WHERE given > 0 OR revoked > 0 OR running > 0
            ORDER BY entitlement
            """
        ).map { row in
            let (entitlement, given, revoked, running) = try row.decode((String, Int64, Int64, Int64).self)
            return Row(entitlement: entitlement, given: Int(given), revoked: Int(revoked), runningAtEnd: Int(running))
        }
    }
}
