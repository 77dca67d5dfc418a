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
        let reason: String? = endpoint.enabled ? nil : WebhookEndpoint.DisabledReason.operator.rawValue
        _ = try await pool.execute(
            """
            INSERT INTO webhook_endpoints (endpoint_id, url, secret, event_types, enabled, created_at, allow_private, disabled_reason)
            VALUES (\(endpoint.id), \(endpoint.url), \(endpoint.secret), \(types), \(endpoint.enabled), \(endpoint.createdAt),
                \(endpoint.allowPrivateTargets), \(reason))
            """)
    }

    /// Every endpoint, oldest first.
    public func all() async throws -> [WebhookEndpoint] {
        try await pool.query(
            """
            SELECT endpoint_id, url, secret, previous_secret, previous_secret_expires_at, event_types, enabled, created_at,
                allow_private, failing_since, disabled_reason, disabled_at
            FROM webhook_endpoints ORDER BY created_at, endpoint_id
            """
        ).map(Self.endpoint)
    }

    /// The endpoints that take new events.
    public func enabled() async throws -> [WebhookEndpoint] {
        try await all().filter(\.enabled)
    }

    /// The endpoints new events are queued for: the enabled ones, and those
    /// the circuit breaker disabled (their rows are recorded dead, for a replay).
    public func receiving() async throws -> [WebhookEndpoint] {
        try await all().filter { $0.enabled || $0.disabledReason == .failing }
    }

    /// Enables or disables one endpoint (the operator's doing). Enabling
    /// also clears the circuit breaker: the endpoint starts healthy again.
    /// - Returns: false when there is no such endpoint.
    public func setEnabled(_ id: String, _ enabled: Bool) async throws -> Bool {
        try await pool.execute(
            enabled
                ? "UPDATE webhook_endpoints SET enabled = true, disabled_reason = NULL, disabled_at = NULL, failing_since = NULL WHERE endpoint_id = \(id)"
                : """
                UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'operator', disabled_at = COALESCE(disabled_at, now())
                WHERE endpoint_id = \(id)
                """) > 0
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
        endpoint.allowPrivateTargets = try row.decode(column: "allow_private")
        endpoint.failingSince = try row.decode(column: "failing_since")
        endpoint.disabledReason = (try row.decode(column: "disabled_reason") as String?).flatMap(WebhookEndpoint.DisabledReason.init(rawValue:))
        endpoint.disabledAt = try row.decode(column: "disabled_at")
        return endpoint
    }
}
