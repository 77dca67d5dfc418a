import Foundation
import Entitlements
import Postgres

extension RevenueLog {
    /// The report's rows for `period` from this log, figures stopping at
    /// `asOf`: the one computation behind `storefront report` and the
    /// reconciler's revenue gauges, so the two cannot disagree.
    public func report(_ period: ReportPeriod, prices: PriceBook, asOf: Date) -> [RevenueReportRow] {
        RevenueReport.build(histories: histories(prices: prices), returns: MoneyReturn.read(moneyEvents), period: period, asOf: asOf)
    }

    /// Reads the log up to the earlier of `asOf` and the period's end, then
    /// builds the report's rows for `period` (``report(_:prices:asOf:)``).
    /// - Throws: ``PostgresError`` when the database cannot be read.
    public static func report(_ period: ReportPeriod, pool: PostgresPool, prices: PriceBook, asOf: Date) async throws -> [RevenueReportRow] {
        let end = min(asOf, period.to)
        return try await read(from: pool, before: end).report(period, prices: prices, asOf: end)
    }
}
