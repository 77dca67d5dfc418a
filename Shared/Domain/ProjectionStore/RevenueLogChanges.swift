import Foundation

/// The rows of the revenue log read since a watermark, for a
/// ``RevenueLogFollower``.
public struct RevenueLogChanges: Sendable {
    /// One row as read.
    public struct Row: Sendable {
        public var dedupKey: String
        /// The transaction that logged it; nil for rows logged before
        /// projection migration 22, which are only ever read by a full read.
        public var transaction: Int64?
        /// The column `ordering_ts`: the provider's time, the one the
        /// report's cut-off at `asOf` compares.
        public var orderingTime: Date?
        /// Nil when the row cannot be read back (``RevenueLog/unreadable``).
        public var entry: RevenueLog.Entry?

        public init(dedupKey: String, transaction: Int64?, orderingTime: Date?, entry: RevenueLog.Entry?) {
            self.dedupKey = dedupKey
            self.transaction = transaction
            self.orderingTime = orderingTime
            self.entry = entry
        }
    }

    /// The watermark the read started from; nil for a read of the whole log.
    public var since: Int64?
    /// Every transaction below it had ended before the rows were read, so
    /// each row it logged is among them or an earlier read's: the next read
    /// starts here (the snapshot's `xmin`).
    public var watermark: Int64
    public var rows: [Row]

    public init(since: Int64?, watermark: Int64, rows: [Row]) {
        self.since = since
        self.watermark = watermark
        self.rows = rows
    }
}

/// Where a ``RevenueLogFollower`` reads new rows: PostgreSQL
/// (``PostgresRevenueLogChanges``), or a fake in unit tests.
public protocol RevenueLogChangeSource: Sendable {
    /// Every row logged by a transaction at or above `since` (every row
    /// when nil), in one snapshot, and the watermark of the next read.
    /// - Throws: when the log cannot be read.
    func changes(since: Int64?) async throws -> RevenueLogChanges
}
