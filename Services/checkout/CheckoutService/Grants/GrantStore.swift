import Foundation
import BillingModel
import Postgres

/// What the grant routes read of `entitlement_grants` (the projector writes
/// it). A seam, so the routes' rules are tested with a fake (GrantRoutesTests)
/// and the queries against PostgreSQL (ServerAPITests).
protocol GrantStore: Sendable {
    /// The grant with this id, as recorded (``EntitlementGrant/State/applied``); nil when there is none.
    func find(grantID: String) async throws -> EntitlementGrant?
    /// How many of the user's grants have not ended at `now` (neither expired nor revoked).
    func runningCount(appUserID: String, at now: Date) async throws -> Int
}

struct PostgresGrantStore: GrantStore {
    let pool: PostgresPool

    func find(grantID: String) async throws -> EntitlementGrant? {
        try await pool.query(
            """
            SELECT grant_id, app_user_id, entitlement, starts_at, expires_at, revoked_at, granted_by, revoked_by, reason
            FROM entitlement_grants WHERE grant_id = \(grantID)
            """
        ).first.map { row in
            let (id, user, entitlement, startsAt, expiresAt, revokedAt, grantedBy, revokedBy, reason) = try row.decode(
                (String, String, String, Date, Date, Date?, String, String?, String?).self)
            return EntitlementGrant(
                grantID: id, appUserID: user, entitlement: entitlement, startsAt: startsAt, expiresAt: expiresAt, revokedAt: revokedAt,
                grantedBy: grantedBy, revokedBy: revokedBy, reason: reason, state: .applied)
        }
    }

    func runningCount(appUserID: String, at now: Date) async throws -> Int {
        let rows = try await pool.query(
            """
            SELECT count(*)::int8 FROM entitlement_grants
            WHERE app_user_id = \(appUserID) AND revoked_at IS NULL AND expires_at > \(now)
            """)
        return Int(try rows.first?.decode(Int64.self) ?? Int64(0))
    }
}
