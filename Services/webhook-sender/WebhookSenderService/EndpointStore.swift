import Foundation
import BillingModel
import Postgres

/// The registered endpoints in PostgreSQL (`webhook_endpoints`): what
/// `storefront endpoints` manages and the sender reads.
public struct EndpointStore: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// How long the secret before a rotation keeps signing beside the new one.
    public static let rotationOverlap: TimeInterval = 24 * 3600

    /// Registers `endpoint`.
    /// - Throws: ``PostgresError`` (a duplicate id among them).
    public func add(_ endpoint: WebhookEndpoint) async throws {
        let types = try Self.typesJSON(endpoint.eventTypes)
        _ = try await pool.execute(
            """
            INSERT INTO webhook_endpoints (endpoint_id, url, secret, event_types, enabled, created_at)
            VALUES (\(endpoint.id), \(endpoint.url), \(endpoint.secret), \(types), \(endpoint.enabled), \(endpoint.createdAt))
            """)
    }

    /// Every endpoint, oldest first.
    public func all() async throws -> [WebhookEndpoint] {
        try await pool.query(
            """
            SELECT endpoint_id, url, secret, previous_secret, previous_secret_expires_at, event_types, enabled, created_at
            FROM webhook_endpoints ORDER BY created_at, endpoint_id
            """
        ).map(Self.endpoint)
    }

    /// The endpoints that take new events.
    public func enabled() async throws -> [WebhookEndpoint] {
        try await all().filter(\.enabled)
    }

    /// Enables or disables one endpoint.
    /// - Returns: false when there is no such endpoint.
    public func setEnabled(_ id: String, _ enabled: Bool) async throws -> Bool {
        try await pool.execute("UPDATE webhook_endpoints SET enabled = \(enabled) WHERE endpoint_id = \(id)") > 0
    }

    /// Removes one endpoint and its queue.
    /// - Returns: false when there is no such endpoint.
    public func remove(_ id: String) async throws -> Bool {
        try await pool.execute("DELETE FROM webhook_endpoints WHERE endpoint_id = \(id)") > 0
    }

    /// Makes `secret` the endpoint's secret; the old one signs beside it for ``rotationOverlap``.
    /// - Returns: false when there is no such endpoint.
    public func rotateSecret(_ id: String, to secret: String, at now: Date = Date()) async throws -> Bool {
        try await pool.execute(
            """
            UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = \(now.addingTimeInterval(Self.rotationOverlap)),
                secret = \(secret)
            WHERE endpoint_id = \(id)
            """) > 0
    }

    static func typesJSON(_ types: Set<String>) throws -> String {
        String(decoding: try RecordCoding.encode(types.sorted()), as: UTF8.self)
    }

    static func endpoint(_ row: PostgresRow) throws -> WebhookEndpoint {
        let typesText: String = try row.decode(column: "event_types")
        let names = try RecordCoding.decode([String].self, from: Array(typesText.utf8))
        var endpoint = WebhookEndpoint(
            id: try row.decode(column: "endpoint_id"), url: try row.decode(column: "url"), secret: try row.decode(column: "secret"),
            // Kept by name, known to this build or not: a filter never widens to every type.
            eventTypes: Set(names), enabled: try row.decode(column: "enabled"),
            createdAt: try row.decode(column: "created_at"))
        endpoint.previousSecret = try row.decode(column: "previous_secret")
        endpoint.previousSecretExpiresAt = try row.decode(column: "previous_secret_expires_at")
        return endpoint
    }
}
