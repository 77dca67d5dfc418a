import Foundation

/// The revenue log kept in memory between computations and brought up to
/// date with only the rows logged since the last read, so a computation
/// reads and decodes what is new rather than the whole log (issue 36).
/// ``log(before:)`` is the log ``RevenueLog/read(from:before:pageRows:)``
/// would return at the same moment: the same entries, folded by the same
/// ``RevenueLog/report(_:prices:asOf:)``.
///
/// Which rows are new: each row records the transaction that logged it
/// (`logged_xid`, projection migration 22), and each read starts at the
/// `xmin` of the snapshot the previous read was taken before. The
/// projector's transactions commit out of the order their ids were given,
/// so a row with a smaller id than one already read may appear later; but
/// every transaction below `xmin` had ended, so what it logged was seen then
/// or never will be. The rows at or above it are read again next time (an
/// overlap as small as the transactions in flight), and the ones already
/// kept are recognised by their dedup key.
public struct RevenueLogFollower: Sendable {
    /// Entries whose provider time is before ``released`` (or unknown), as
    /// the full read would have them; its refunds not yet cleared of those
    /// announced twice (that needs every subscription's history, so it is
    /// done on each ``log(before:)``).
    private var kept = RevenueLog()
    /// Entries of a provider time at or after ``released``: the full read
    /// leaves them out until its cut-off passes them.
    private var held: [(at: Date, entry: RevenueLog.Entry)] = []
    private var released = Date.distantPast
    /// Where the next read starts; nil before the first (a full read).
    public private(set) var watermark: Int64?
    /// Dedup keys read from transactions at or above ``watermark``: the
    /// next read returns them again.
    private var recent: [String: Int64] = [:]

    public init() {}

    /// Whether ``log(before:)`` can answer for `asOf`: not for a moment
    /// before one it already answered for (the entries it released since
    /// cannot be held back again); start a new follower then.
    public func canAnswer(before asOf: Date) -> Bool { asOf >= released }

    /// Takes the rows of a read that started at ``watermark``.
    /// - Returns: false, changing nothing, when `changes` started elsewhere.
    @discardableResult
    public mutating func apply(_ changes: RevenueLogChanges) -> Bool {
        guard changes.since == watermark else { return false }
        for row in changes.rows where recent[row.dedupKey] == nil {
            if let transaction = row.transaction, transaction >= changes.watermark { recent[row.dedupKey] = transaction }
            guard let entry = row.entry else {
                kept.unreadable.append(row.dedupKey)
                continue
            }
            if let at = row.orderingTime, at >= released {
                held.append((at, entry))
            } else {
                kept.add(entry)
            }
        }
        recent = recent.filter { $0.value >= changes.watermark }
        watermark = changes.watermark
        kept.rowsRead = changes.rows.count
        return true
    }

    /// The log up to `before` (exclusive; events without a provider time
    /// first), as the full read would return it; its ``RevenueLog/rowsRead``
    /// is the latest read's. Call with non-decreasing times
    /// (``canAnswer(before:)``).
    public mutating func log(before: Date) -> RevenueLog {
        if before > released {
            released = before
            let due = held.filter { $0.at < before }
            held.removeAll { $0.at < before }
            for (_, entry) in due { kept.add(entry) }
        }
        var log = kept
        log.moneyEvents = kept.withoutRefundsCountedTwice(kept.moneyEvents)
        return log
    }
}
