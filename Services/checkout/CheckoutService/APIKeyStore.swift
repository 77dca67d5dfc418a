import Foundation

/// One stored API key, without its secret (only the hash is ever kept).
public struct APIKeyRecord: Sendable, Equatable {
    public var keyID: String
    /// The operator's label (`--name`), to tell keys apart in `api-keys list`.
    public var name: String
    public var scopes: Set<APIKeyScope>
    /// SHA-256 of the whole key (``APIKey/hash``).
    public var hash: [UInt8]
    public var createdAt: Date
    /// Set by `api-keys revoke`; a revoked key is refused.
    public var revokedAt: Date?
    /// When the key last authenticated a request (updated at most once a minute).
    public var lastUsedAt: Date?
    /// From when the key is refused, as a revoked one is (`api-keys create --expires-in`); nil never expires.
    public var expiresAt: Date?

    public init(
        keyID: String, name: String, scopes: Set<APIKeyScope>, hash: [UInt8], createdAt: Date, revokedAt: Date? = nil, lastUsedAt: Date? = nil,
        expiresAt: Date? = nil
    ) {
        self.keyID = keyID
        self.name = name
        self.scopes = scopes
        self.hash = hash
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
    }

    /// Whether the key has expired at `now` (an expiry is the first instant it is refused).
    public func isExpired(at now: Date) -> Bool {
        expiresAt.map { now >= $0 } ?? false
    }
}

/// Where API keys live (PostgreSQL in the service and the CLI, a fake in unit tests).
public protocol APIKeyStore: Sendable {
    /// Stores a new key.
    /// - Throws: the store's error (a duplicate key id among them).
    func insert(_ record: APIKeyRecord) async throws
    /// The key with this id, revoked or not; nil when there is none.
    func find(keyID: String) async throws -> APIKeyRecord?
    /// Every key, oldest first.
    func list() async throws -> [APIKeyRecord]
    /// Marks the key revoked at `date`.
    /// - Returns: false when no unrevoked key has this id.
    func revoke(keyID: String, at date: Date) async throws -> Bool
    /// Records that the key authenticated a request at `date`.
    func markUsed(keyID: String, at date: Date) async throws
}
