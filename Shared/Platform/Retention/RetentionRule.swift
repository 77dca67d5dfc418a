import Foundation
import Postgres

/// One kind of row a service prunes: its label, how long it is kept, and
/// the statement that deletes one batch of it.
///
/// The statement deletes at most `limit` rows whose time is before
/// `cutoff`, chosen through an index on that time, and skips rows another
/// transaction holds (`FOR UPDATE SKIP LOCKED` where the role may lock), so
/// a batch never waits on the hot path; it returns the number deleted
/// (``PostgresConnection/execute(_:)``). Deleting the same rows twice is
/// harmless, so replicas may run it at once.
public struct RetentionRule: Sendable {
    /// The label of its metrics and log lines: the table, or the table and
    /// the kind of row (`webhook_deliveries.dead`). A fixed word, never data.
    public let name: String
    public let period: RetentionPeriod
    /// Builds one batch's DELETE for a cutoff and a row limit.
    public let batch: @Sendable (_ cutoff: Date, _ limit: Int) -> PostgresQuery

    public init(_ name: String, keep period: RetentionPeriod, batch: @escaping @Sendable (_ cutoff: Date, _ limit: Int) -> PostgresQuery) {
        self.name = name
        self.period = period
        self.batch = batch
    }
}
