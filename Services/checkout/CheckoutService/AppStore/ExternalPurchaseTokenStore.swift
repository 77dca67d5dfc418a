import Foundation
import Postgres

/// Who first sent each external purchase token with a checkout, so a token
/// is never used for two users (Apple attributes a token's purchases to
/// one customer). A seam: the checks are tested with a fake
/// (LinkOutCheckTests), the query against PostgreSQL (AppStoreEndToEndTests).
protocol ExternalPurchaseTokenStore: Sendable {
    /// Records `owner` as the token's user unless another owns it.
    /// - Parameter keepUntil: when the row may be pruned (the token's end, or a year for tokens without one).
    /// - Returns: the token's owner afterwards (`owner` unless it was someone else's).
    func claim(externalPurchaseID: String, owner: String, keepUntil: Date) async throws -> String
}

struct PostgresExternalPurchaseTokenStore: ExternalPurchaseTokenStore {
    let pool: PostgresPool

    func claim(externalPurchaseID: String, owner: String, keepUntil: Date) async throws -> String {
        // One statement: an insert that meets an existing row locks it and reads its owner.
        let rows = try await pool.query(
            """
            INSERT INTO checkout_external_purchase_tokens AS t (external_purchase_id, owner, keep_until)
            VALUES (\(externalPurchaseID), \(owner), \(keepUntil))
            ON CONFLICT (external_purchase_id) DO UPDATE
                SET keep_until = CASE WHEN t.owner = EXCLUDED.owner THEN GREATEST(t.keep_until, EXCLUDED.keep_until) ELSE t.keep_until END
            RETURNING owner
            """)
        return try rows.first?.decode(String.self) ?? owner
    }
}
