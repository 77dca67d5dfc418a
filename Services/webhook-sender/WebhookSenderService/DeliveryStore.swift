import Timing
import Foundation
import BillingModel
import Postgres

/// The delivery queue in PostgreSQL (`webhook_deliveries`): one row per
/// endpoint and event, sent in order per endpoint and ordering key (the
/// column `app_user_id` holds ``OutgoingEvent/orderingKey``: the app user
/// of an entitlement change, the purchase key of a purchase event).
///
/// Only a head, the oldest pending row of its endpoint and ordering key, has
/// a finite `next_attempt_at`; the rows behind it wait at `infinity` and the
/// next one is promoted when the head is delivered or dead (migration 4). A
/// claim therefore reads due heads only (index `webhook_deliveries_heads`):
/// rows held back by their order, by backoff or by a lease cost it nothing.
/// Whoever changes which row is a head (``enqueue(_:for:)``, ``record(_:outcome:retryAt:)``,
/// replays) holds the transaction-scoped advisory lock of that endpoint and
/// key first (``lockKeys(_:on:)``), so a promotion never misses a row being
/// queued behind the head it retires.
public struct DeliveryStore: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// The reason recorded on events queued for an endpoint the circuit breaker disabled.
    static let disabledByBreaker = "not sent: the endpoint was disabled after failing for too long"

    /// Queues each event for each endpoint that wants its type, in the
    /// order given (one transaction). An event already queued for an
    /// endpoint (a redelivered record) adds nothing. An endpoint the circuit
    /// breaker disabled gets its rows recorded `dead` (never sent, but there
    /// for `storefront endpoints replay --since`); one the operator disabled gets none.
    /// - Parameter events: each record's id, type, ordering key and bytes.
    /// - Returns: rows added.
    public func enqueue(_ events: [OutgoingEvent], for endpoints: [WebhookEndpoint]) async throws -> Int {
        var columns: [[PostgresBind]] = Array(repeating: [], count: 6)
        for event in events {
            for endpoint in endpoints where endpoint.wants(event.type) {
                let state: String
                if endpoint.enabled {
                    state = "pending"
                } else if endpoint.disabledReason == .failing {
                    state = "dead"
                } else {
                    continue
                }
                for (column, value) in [endpoint.id, event.id, event.orderingKey, event.type, event.body, state].enumerated() {
                    columns[column].append(value.postgresBind)
                }
            }
        }
        guard !columns[0].isEmpty else { return 0 }
        let (e, ev, k, t, b, s) = (
            try PostgresBind.array(columns[0], of: .text), try PostgresBind.array(columns[1], of: .text),
            try PostgresBind.array(columns[2], of: .text),
            try PostgresBind.array(columns[3], of: .text), try PostgresBind.array(columns[4], of: .text),
            try PostgresBind.array(columns[5], of: .text)
        )
        return try await pool.withTransaction { connection in
            try await Self.lockKeys(endpoints: e, keys: k, on: connection)
            // A row is a head when it is the first of its key in the batch and
            // its key has no pending row yet; rows already queued (a redelivered
            // record) and repeats within the batch are left out before ranking,
            // so they never make a later row wait behind nothing.
            return try await connection.execute(
                """
                WITH input AS (
                    SELECT DISTINCT ON (r.e, r.ev) r.e, r.ev, r.k, r.t, r.b, r.s, r.n
                    FROM unnest(\(e)::text[], \(ev)::text[], \(k)::text[], \(t)::text[], \(b)::text[], \(s)::text[])
                        WITH ORDINALITY AS r(e, ev, k, t, b, s, n)
                    WHERE EXISTS (SELECT 1 FROM webhook_endpoints AS w WHERE w.endpoint_id = r.e)
                        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries AS x WHERE x.endpoint_id = r.e AND x.event_id = r.ev)
                    ORDER BY r.e, r.ev, r.n),
                ranked AS (
                    SELECT input.*, row_number() OVER (PARTITION BY e, k, s ORDER BY n) AS place FROM input)
                INSERT INTO webhook_deliveries (endpoint_id, event_id, app_user_id, event_type, body, state, next_attempt_at, last_error)
                SELECT e, ev, k, t, b, s,
                    CASE WHEN s = 'pending' AND (place > 1 OR EXISTS (
                            SELECT 1 FROM webhook_deliveries AS p WHERE p.endpoint_id = e AND p.app_user_id = k AND p.state = 'pending'))
                        THEN 'infinity'::timestamptz ELSE now() END,
                    CASE WHEN s = 'dead' THEN \(Self.disabledByBreaker) END
                FROM ranked ORDER BY n
                ON CONFLICT (endpoint_id, event_id) DO NOTHING
                """)
        }
    }

    /// Takes, per endpoint of `slots`, up to its number of deliveries that are
    /// due heads (first in their endpoint's queue for their ordering key),
    /// oldest due first, and at most `total` in all, shared out one per
    /// endpoint before any endpoint's second. They are leased for `lease`: no
    /// other sender takes them meanwhile, and a claimed head is not due again
    /// until its lease ran out. Only enabled endpoints are served; an endpoint
    /// left out of `slots` (full, or broken) costs the claim nothing.
    public func claimDue(slots: [String: Int], total: Int, lease: Duration) async throws -> [Delivery] {
        guard let query = try Self.claimQuery(slots: slots, total: total, lease: lease) else { return [] }
        return try await pool.query(query).map { row in
            let (endpoint, event, orderingKey, body, attempts) = try row.decode((String, String, String, String, Int32).self)
            return Delivery(endpointID: endpoint, eventID: event, orderingKey: orderingKey, body: body, attempts: Int(attempts))
        }
    }

    /// The statement of ``claimDue(slots:total:lease:)`` (tests measure its plan); nil when nothing is asked for.
    static func claimQuery(slots: [String: Int], total: Int, lease: Duration) throws -> PostgresQuery? {
        let wanted = slots.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        guard !wanted.isEmpty, total > 0 else { return nil }
        let ids = try PostgresBind.array(wanted.map(\.key.postgresBind), of: .text)
        let limits = try PostgresBind.array(wanted.map(\.value.postgresBind), of: .int8)
        // Rows locked by the lateral scans but cut by the outer limit stay
        // locked only until this statement ends; other senders skip them meanwhile.
        let query: PostgresQuery = """
            WITH locked AS (
                SELECT h.endpoint_id, h.event_id, h.next_attempt_at, h.seq
                FROM unnest(\(ids)::text[], \(limits)::bigint[]) AS wanted(endpoint_id, n)
                JOIN webhook_endpoints AS e ON e.endpoint_id = wanted.endpoint_id AND e.enabled
                CROSS JOIN LATERAL (
                    SELECT d.endpoint_id, d.event_id, d.next_attempt_at, d.seq FROM webhook_deliveries AS d
                    WHERE d.endpoint_id = wanted.endpoint_id AND d.state = 'pending'
                        AND d.next_attempt_at <= now() AND d.next_attempt_at < 'infinity'::timestamptz
                    ORDER BY d.next_attempt_at, d.seq
                    LIMIT wanted.n
                    FOR UPDATE OF d SKIP LOCKED) AS h),
            heads AS (
                SELECT endpoint_id, event_id FROM (
                    SELECT locked.*, row_number() OVER (PARTITION BY endpoint_id ORDER BY next_attempt_at, seq) AS place FROM locked) AS r
                ORDER BY place, next_attempt_at, seq
                LIMIT \(total))
            UPDATE webhook_deliveries AS w
            SET leased_until = now() + make_interval(secs => \(lease.inSeconds)), next_attempt_at = now() + make_interval(secs => \(lease.inSeconds))
            FROM heads WHERE w.endpoint_id = heads.endpoint_id AND w.event_id = heads.event_id
            RETURNING w.endpoint_id, w.event_id, w.app_user_id, w.body, w.attempts
            """
        return query
    }

    /// ``claimDue(slots:total:lease:)`` for every enabled endpoint at once, up to `limit` each.
    public func claimDue(limit: Int, lease: Duration) async throws -> [Delivery] {
        let ids = try await pool.query("SELECT endpoint_id FROM webhook_endpoints WHERE enabled").map { try $0.decode(String.self) }
        return try await claimDue(slots: Dictionary(uniqueKeysWithValues: ids.map { ($0, limit) }), total: limit * max(1, ids.count), lease: lease)
    }

    /// Records an attempt: delivered, to be retried at `retryAt`, or dead
    /// when `retryAt` is nil. A delivered or dead head hands its place to the
    /// next pending row of its endpoint and ordering key.
    public func record(_ delivery: Delivery, outcome: DeliveryOutcome, retryAt: Date?) async throws {
        try await pool.withTransaction { connection in try await record(delivery, outcome: outcome, retryAt: retryAt, on: connection) }
    }

    /// ``record(_:outcome:retryAt:)`` within the caller's transaction.
    func record(_ delivery: Delivery, outcome: DeliveryOutcome, retryAt: Date?, on connection: PostgresConnection) async throws {
        let attempts = delivery.attempts + 1
        switch outcome {
        case .delivered(let status):
            try await Self.lockKeys(endpoints: [delivery.endpointID], keys: [delivery.orderingKey], on: connection)
            _ = try await connection.execute(
                """
                UPDATE webhook_deliveries SET state = 'delivered', attempts = \(attempts), last_status = \(status), last_error = NULL,
                    delivered_at = now(), leased_until = NULL
                WHERE endpoint_id = \(delivery.endpointID) AND event_id = \(delivery.eventID)
                """)
            try await Self.promoteNext(endpointID: delivery.endpointID, orderingKey: delivery.orderingKey, on: connection)
        case .failed(let status, let reason) where retryAt == nil:
            try await Self.lockKeys(endpoints: [delivery.endpointID], keys: [delivery.orderingKey], on: connection)
            _ = try await connection.execute(
                """
                UPDATE webhook_deliveries SET state = 'dead', attempts = \(attempts), last_status = \(status), last_error = \(reason),
                    leased_until = NULL
                WHERE endpoint_id = \(delivery.endpointID) AND event_id = \(delivery.eventID)
                """)
            try await Self.promoteNext(endpointID: delivery.endpointID, orderingKey: delivery.orderingKey, on: connection)
        case .failed(let status, let reason):
            // Still the head: no other row changes, no lock.
            _ = try await connection.execute(
                """
                UPDATE webhook_deliveries SET attempts = \(attempts), last_status = \(status), last_error = \(reason),
                    next_attempt_at = \(retryAt), leased_until = NULL
                WHERE endpoint_id = \(delivery.endpointID) AND event_id = \(delivery.eventID)
                """)
        }
    }

    /// Makes the oldest pending row of the endpoint and key its head, unless one is already.
    static func promoteNext(endpointID: String, orderingKey: String, on connection: PostgresConnection) async throws {
        _ = try await connection.execute(
            """
            UPDATE webhook_deliveries SET next_attempt_at = now()
            WHERE (endpoint_id, event_id) = (
                    SELECT endpoint_id, event_id FROM webhook_deliveries
                    WHERE endpoint_id = \(endpointID) AND app_user_id = \(orderingKey) AND state = 'pending'
                    ORDER BY seq LIMIT 1)
                AND next_attempt_at = 'infinity'::timestamptz
            """)
    }

    /// Takes the advisory lock of each (endpoint, ordering key) pair, in the
    /// order of the lock keys, so two transactions never wait on each other
    /// in a circle. Keys that hash alike only wait for each other.
    static func lockKeys(endpoints: [String], keys: [String], on connection: PostgresConnection) async throws {
        try await lockKeys(
            endpoints: try PostgresBind.array(endpoints.map(\.postgresBind), of: .text),
            keys: try PostgresBind.array(keys.map(\.postgresBind), of: .text),
            on: connection)
    }

    static func lockKeys(endpoints: PostgresBind, keys: PostgresBind, on connection: PostgresConnection) async throws {
        _ = try await connection.query(
            """
            SELECT count(pg_advisory_xact_lock(h)) FROM (
                SELECT DISTINCT hashtextextended(e || E'\\n' || k, 7340101) AS h
                FROM unnest(\(endpoints)::text[], \(keys)::text[]) AS x(e, k) ORDER BY 1) AS pairs
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
