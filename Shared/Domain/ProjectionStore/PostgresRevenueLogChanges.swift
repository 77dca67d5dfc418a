import Foundation
import Postgres

/// Reads the revenue log's new rows from PostgreSQL, through the view
/// `revenue_events` (so the reconciler's role can): the columns of
/// ``RevenueLog/read(from:before:pageRows:)`` plus the row's provider time
/// and logging transaction, without the cut-off at a moment (the
/// ``RevenueLogFollower`` holds rows back until their time is due).
public struct PostgresRevenueLogChanges: RevenueLogChangeSource {
    let pool: PostgresPool
    let pageRows: Int

    public init(pool: PostgresPool, pageRows: Int = RevenueLog.pageRows) {
        self.pool = pool
        self.pageRows = max(1, pageRows)
    }

    /// Through a cursor, `pageRows` at a time, as the full read (the first
    /// read is one). The watermark is taken by the statement before the
    /// cursor's: an earlier snapshot's `xmin` is never above a later one's,
    /// so it can only make the next read start earlier, never miss a row.
    /// - Throws: ``PostgresError`` when the database cannot be read.
    public func changes(since: Int64?) async throws -> RevenueLogChanges {
        try await pool.withTransaction { connection in
            // xid8 has no cast to bigint, but its epoch (the high 32 bits) stays far below 2^31.
            let watermark = try await connection.query("SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint")[0].decode(Int64.self)
            try await connection.execute(
                """
                DECLARE revenue_log_changes NO SCROLL CURSOR FOR
                SELECT provider, subscription_id, dedup_key, event::text, price_amount, price_currency, interval_unit, interval_count,
                    ordering_ts, logged_xid::text::bigint
                FROM revenue_events
                WHERE (subscription_id IS NOT NULL OR kind IN ('orderRefunded', 'paymentRefunded', 'refundProcessed', 'disputeCreated'))
                    AND (\(since)::bigint IS NULL OR logged_xid >= \(since)::bigint::text::xid8)
                """)
            var rows: [RevenueLogChanges.Row] = []
            while true {
                // An integer of ours, not input: FETCH takes no parameter.
                let page = try await connection.query(PostgresQuery(unsafeSQL: "FETCH FORWARD \(pageRows) FROM revenue_log_changes"))
                for row in page { rows.append(try Self.row(row)) }
                if page.count < pageRows { break }
            }
            try await connection.execute("CLOSE revenue_log_changes")
            return RevenueLogChanges(since: since, watermark: watermark, rows: rows)
        }
    }

    static func row(_ row: PostgresRow) throws -> RevenueLogChanges.Row {
        let (provider, subscriptionID, dedupKey, json, amount, currency, unit, count, orderingTime, transaction) = try row.decode(
            (String, String?, String, String, Int64?, String?, String?, Int32?, Date?, Int64?).self)
        let price = RevenueLog.price(amount: amount, currency: currency, unit: unit, count: count)
        return RevenueLogChanges.Row(
            dedupKey: dedupKey, transaction: transaction, orderingTime: orderingTime,
            entry: RevenueLog.Entry(provider: provider, subscriptionID: subscriptionID, dedupKey: dedupKey, json: json, price: price))
    }
}
