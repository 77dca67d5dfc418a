import Foundation
import Postgres

/// API keys in the checkout's `checkout_api_keys` table (checkout migrations 4 and 6).
public struct PostgresAPIKeyStore: APIKeyStore {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public func insert(_ record: APIKeyRecord) async throws {
        try await pool.execute(
            """
            INSERT INTO checkout_api_keys (key_id, name, scopes, key_hash, created_at, expires_at)
            VALUES (\(record.keyID), \(record.name), \(Self.render(record.scopes)), \(record.hash), \(record.createdAt), \(record.expiresAt))
            """)
    }

    public func find(keyID: String) async throws -> APIKeyRecord? {
        try await pool.query(
            """
            SELECT key_id, name, scopes, key_hash, created_at, revoked_at, last_used_at, expires_at
            FROM checkout_api_keys WHERE key_id = \(keyID)
            """
        ).first.map(Self.record)
    }

    public func list() async throws -> [APIKeyRecord] {
        try await pool.query(
            """
            SELECT key_id, name, scopes, key_hash, created_at, revoked_at, last_used_at, expires_at
            FROM checkout_api_keys ORDER BY created_at, key_id
            """
        ).map(Self.record)
    }

    public func revoke(keyID: String, at date: Date) async throws -> Bool {
        try await pool.execute(
            "UPDATE checkout_api_keys SET revoked_at = \(date) WHERE key_id = \(keyID) AND revoked_at IS NULL") == 1
    }

    public func markUsed(keyID: String, at date: Date) async throws {
        // At most one write a minute per key: a busy server's every request
        // must not become a row update, and a minute is precise enough to
        // tell a key still in use from an abandoned one.
        try await pool.execute(
            """
            UPDATE checkout_api_keys SET last_used_at = \(date)
            WHERE key_id = \(keyID) AND (last_used_at IS NULL OR last_used_at < \(date.addingTimeInterval(-60)))
            """)
    }

    /// Scopes as stored: their raw values, sorted, space-separated (as OAuth writes them).
    static func render(_ scopes: Set<APIKeyScope>) -> String {
        scopes.map(\.rawValue).sorted().joined(separator: " ")
    }

    /// Unknown stored scopes (written by a newer version) grant nothing here.
    static func parse(_ text: String) -> Set<APIKeyScope> {
        Set(text.split(separator: " ").compactMap { APIKeyScope(rawValue: String($0)) })
    }

    private static func record(_ row: PostgresRow) throws -> APIKeyRecord {
        let (keyID, name, scopes, hash, created, revoked, used, expires) = try row.decode(
            (String, String, String, [UInt8], Date, Date?, Date?, Date?).self)
        return APIKeyRecord(
            keyID: keyID, name: name, scopes: parse(scopes), hash: hash, createdAt: created, revokedAt: revoked, lastUsedAt: used,
            expiresAt: expires)
    }
}
