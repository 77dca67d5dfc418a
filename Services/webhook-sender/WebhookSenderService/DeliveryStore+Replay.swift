import Foundation
import Postgres

/// Which finished deliveries of one endpoint `storefront endpoints replay` queues again.
public struct ReplaySelection: Sendable, Hashable {
    public var endpointID: String
    /// One event only.
    public var eventID: String?
    /// Rows queued at or after this time (`created_at`).
    public var since: Date?
    /// Rows queued before this time.
    public var until: Date?
    /// Delivered rows too (a receiver that lost what it got), not only dead ones.
    public var includeDelivered = false

    public init(endpointID: String, eventID: String? = nil, since: Date? = nil, until: Date? = nil, includeDelivered: Bool = false) {
        self.endpointID = endpointID
        self.eventID = eventID
        self.since = since
        self.until = until
        self.includeDelivered = includeDelivered
    }

    var states: [String] { includeDelivered ? ["dead", "delivered"] : ["dead"] }
}

extension DeliveryStore {
    /// Puts dead deliveries of `endpointID` back in the queue, due now with a
    /// fresh schedule: every one, or only `eventID`.
    /// - Returns: how many were requeued.
    public func replay(endpointID: String, eventID: String? = nil) async throws -> Int {
        try await replay(ReplaySelection(endpointID: endpointID, eventID: eventID))
    }

    /// How many rows ``replay(_:chunk:progress:)`` would queue again now.
    public func replayCount(_ selection: ReplaySelection) async throws -> Int {
        let states = try PostgresBind.array(selection.states.map(\.postgresBind), of: .text)
        let row = try await pool.query(
            """
            SELECT count(*) FROM webhook_deliveries
            WHERE endpoint_id = \(selection.endpointID) AND state = ANY(\(states)::text[])
                AND (\(selection.eventID)::text IS NULL OR event_id = \(selection.eventID)::text)
                AND (\(selection.since)::timestamptz IS NULL OR created_at >= \(selection.since)::timestamptz)
                AND (\(selection.until)::timestamptz IS NULL OR created_at < \(selection.until)::timestamptz)
            """)
        let count: Int64 = try row.first?.decode(Int64.self) ?? 0
        return Int(count)
    }

    /// Queues the selected finished deliveries again with a fresh schedule,
    /// `chunk` rows per transaction in the order they were queued, calling
    /// `progress` after each. A row already pending is not touched, so a
    /// second run (or one that overlaps the first) queues nothing twice; the
    /// receiver dedupes a resent event by its `webhook-id` anyway. Each
    /// replayed row joins its ordering key's queue: sent now when nothing of
    /// that key is pending, else after what is.
    /// - Returns: how many were requeued.
    @discardableResult
    public func replay(_ selection: ReplaySelection, chunk: Int = 1000, progress: (Int) -> Void = { _ in }) async throws -> Int {
        let states = try PostgresBind.array(selection.states.map(\.postgresBind), of: .text)
        var done = 0
        var after: (created: Date, seq: Int64)? = nil
        while true {
            let step = try await pool.withTransaction { connection -> (count: Int, last: (Date, Int64)?) in
                let rows = try await connection.query(
                    """
                    SELECT event_id, app_user_id, created_at, seq FROM webhook_deliveries
                    WHERE endpoint_id = \(selection.endpointID) AND state = ANY(\(states)::text[])
                        AND (\(selection.eventID)::text IS NULL OR event_id = \(selection.eventID)::text)
                        AND (\(selection.since)::timestamptz IS NULL OR created_at >= \(selection.since)::timestamptz)
                        AND (\(selection.until)::timestamptz IS NULL OR created_at < \(selection.until)::timestamptz)
                        AND (\(after?.created)::timestamptz IS NULL OR (created_at, seq) > (\(after?.created)::timestamptz, \(after?.seq)::bigint))
                    ORDER BY created_at, seq LIMIT \(chunk)
                    """
                ).map { try $0.decode((String, String, Date, Int64).self) }
                guard let last = rows.last else { return (0, nil) }
                try await Self.lockKeys(endpoints: rows.map { _ in selection.endpointID }, keys: rows.map(\.1), on: connection)
                let ids = try PostgresBind.array(rows.map(\.0.postgresBind), of: .text)
                // Under the locks: only rows still finished, each a head only
                // when it is its key's first here and nothing of its key is pending.
                let count = try await connection.execute(
                    """
                    WITH chosen AS (
                        SELECT event_id, row_number() OVER (PARTITION BY app_user_id ORDER BY seq) AS place
                        FROM webhook_deliveries
                        WHERE endpoint_id = \(selection.endpointID) AND event_id = ANY(\(ids)::text[]) AND state = ANY(\(states)::text[]))
                    UPDATE webhook_deliveries AS d SET state = 'pending', attempts = 0, leased_until = NULL, delivered_at = NULL,
                        next_attempt_at = CASE WHEN c.place = 1 AND NOT EXISTS (
                                SELECT 1 FROM webhook_deliveries AS p
                                WHERE p.endpoint_id = d.endpoint_id AND p.app_user_id = d.app_user_id AND p.state = 'pending')
                            THEN now() ELSE 'infinity'::timestamptz END
                    FROM chosen AS c WHERE d.endpoint_id = \(selection.endpointID) AND d.event_id = c.event_id
                    """)
                return (count, (last.2, last.3))
            }
            guard let last = step.last else { break }
            done += step.count
            after = (last.0, last.1)
            progress(done)
        }
        return done
    }
}
