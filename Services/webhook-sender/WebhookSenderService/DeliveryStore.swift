import Timing
import Foundation
import BillingModel
import Postgres

/// The delivery queue in PostgreSQL (`webhook_deliveries`): one row per
/// endpoint and event, sent in order per endpoint and ordering key (the
/// column `app_user_id` holds ``OutgoingEvent/orderingKey``: the app user
/// of an entitlement change, the purchase key of a purchase event).
public struct DeliveryStore: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Queues each event for each endpoint that wants its type, in the
    /// order given (one statement). An event already queued for an endpoint
    /// (a redelivered record) adds nothing.
    /// - Parameter events: each record's id, type, ordering key and bytes.
    /// - Returns: rows added.
    public func enqueue(_ events: [OutgoingEvent], for endpoints: [WebhookEndpoint]) async throws -> Int {
        var rows: [[String]] = []
        for event in events {
            for endpoint in endpoints where endpoint.wants(event.type) {
                rows.append([endpoint.id, event.id, event.orderingKey, event.type, event.body])
            }
        }
        guard !rows.isEmpty else { return 0 }
        let json = String(decoding: try RecordCoding.encode(rows), as: UTF8.self)
        return try await pool.execute(
            """
            INSERT INTO webhook_deliveries (endpoint_id, event_id, app_user_id, event_type, body)
            SELECT r->>0, r->>1, r->>2, r->>3, r->>4 FROM jsonb_array_elements(\(json)::jsonb) WITH ORDINALITY AS x(r, n)
            WHERE EXISTS (SELECT 1 FROM webhook_endpoints AS e WHERE e.endpoint_id = r->>0)
            ORDER BY n
            ON CONFLICT (endpoint_id, event_id) DO NOTHING
            """)
    }

    /// Takes up to `limit` deliveries that are due and first in their
    /// endpoint's queue for their ordering key (an earlier pending one holds
    /// the later back), leased for `lease`, so no other sender takes them meanwhile.
    public func claimDue(limit: Int, lease: Duration) async throws -> [Delivery] {
        try await pool.query(
            """
            WITH heads AS (
                SELECT d.endpoint_id, d.event_id FROM webhook_deliveries AS d
                JOIN webhook_endpoints AS e ON e.endpoint_id = d.endpoint_id AND e.enabled
                WHERE d.state = 'pending' AND d.next_attempt_at <= now() AND (d.leased_until IS NULL OR d.leased_until < now())
                    AND NOT EXISTS (
                        SELECT 1 FROM webhook_deliveries AS p
                        WHERE p.endpoint_id = d.endpoint_id AND p.app_user_id = d.app_user_id AND p.state = 'pending' AND p.seq < d.seq)
                ORDER BY d.next_attempt_at, d.seq
                LIMIT \(limit)
                FOR UPDATE OF d SKIP LOCKED)
            UPDATE webhook_deliveries AS w SET leased_until = now() + make_interval(secs => \(lease.inSeconds))
            FROM heads WHERE w.endpoint_id = heads.endpoint_id AND w.event_id = heads.event_id
            RETURNING w.endpoint_id, w.event_id, w.app_user_id, w.body, w.attempts
            """
        ).map { row in
            let (endpoint, event, orderingKey, body, attempts) = try row.decode((String, String, String, String, Int32).self)
            return Delivery(endpointID: endpoint, eventID: event, orderingKey: orderingKey, body: body, attempts: Int(attempts))
        }
    }

    /// Records an attempt: delivered, to be retried at `retryAt`, or dead when `retryAt` is nil.
    public func record(_ delivery: Delivery, outcome: DeliveryOutcome, retryAt: Date?) async throws {
        let attempts = delivery.attempts + 1
        switch outcome {
        case .delivered(let status):
            _ = try await pool.execute(
                """
                UPDATE webhook_deliveries SET state = 'delivered', attempts = \(attempts), last_status = \(status), last_error = NULL,
                    delivered_at = now(), leased_until = NULL
                WHERE endpoint_id = \(delivery.endpointID) AND event_id = \(delivery.eventID)
                """)
        case .failed(let status, let reason):
            let state = retryAt == nil ? "dead" : "pending"
            _ = try await pool.execute(
                """
                UPDATE webhook_deliveries SET state = \(state), attempts = \(attempts), last_status = \(status), last_error = \(reason),
                    next_attempt_at = COALESCE(\(retryAt)::timestamptz, next_attempt_at), leased_until = NULL
                WHERE endpoint_id = \(delivery.endpointID) AND event_id = \(delivery.eventID)
                """)
        }
    }

    /// Puts dead deliveries of `endpointID` back in the queue, due now with a
    /// fresh schedule: every one, or only `eventID`.
    /// - Returns: how many were requeued.
    public func replay(endpointID: String, eventID: String? = nil) async throws -> Int {
        try await pool.execute(
            """
            UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = now(), leased_until = NULL
            WHERE endpoint_id = \(endpointID) AND state = 'dead' AND (\(eventID)::text IS NULL OR event_id = \(eventID)::text)
            """)
    }

    /// Per endpoint: deliveries pending, delivered and dead.
    public func counts() async throws -> [String: (pending: Int, delivered: Int, dead: Int)] {
        var result: [String: (pending: Int, delivered: Int, dead: Int)] = [:]
        for row in try await pool.query(
            """
            SELECT endpoint_id, count(*) FILTER (WHERE state = 'pending'), count(*) FILTER (WHERE state = 'delivered'),
                count(*) FILTER (WHERE state = 'dead')
            FROM webhook_deliveries GROUP BY endpoint_id
            """)
        {
            let (id, pending, delivered, dead) = try row.decode((String, Int64, Int64, Int64).self)
            result[id] = (Int(pending), Int(delivered), Int(dead))
        }
        return result
    }
}
