import Foundation
import Catalog
import Entitlements
import Postgres
import Timing
import ProjectionStore

/// One computation of the current month's revenue figures.
public struct RevenueFigures: Sendable {
    /// One row per provider and currency: the calendar month (UTC) holding
    /// the computation's time, from its start up to that time (docs/revenue.md).
    public var rows: [RevenueReportRow]
    /// Events read from the log: what the computation's cost grows with.
    public var eventsRead: Int

    public init(rows: [RevenueReportRow], eventsRead: Int) {
        self.rows = rows
        self.eventsRead = eventsRead
    }
}

/// Where the revenue gauges get their figures: the event log, or a fake in unit tests.
public protocol RevenueFiguresSource: Sendable {
    /// The figures of the calendar month holding `asOf`, up to `asOf`.
    func figures(asOf: Date) async throws -> RevenueFigures
}

/// The month's figures from the event log in PostgreSQL, priced with the
/// providers' catalogs: the same entries and the same computation as
/// `storefront report` (``ProjectionStore/RevenueLog``), so a gauge and the
/// report for the same moment cannot disagree.
///
/// Lemon Squeezy's events state no price, so its MRR needs the catalog
/// (docs/revenue.md, "Where the prices come from"); it is fetched through
/// the reconciler's sweep-class clients (the shared provider budget's
/// background share) when it is older than ``catalogMaxAge`` or a provider
/// never loaded, and a provider whose fetch fails keeps its last good
/// prices (``Catalog/CatalogCache``).
///
/// Cost of one computation: the first reads the whole log (one pass over
/// `billing_events`) and keeps it decoded in memory
/// (``ProjectionStore/RevenueLogFollower``); each later one reads and
/// decodes only the rows logged since the one before (through the index on
/// the logging transaction, plus the few rows of transactions then in
/// flight), then folds the kept log in memory, no query or decoding per
/// old event. Plus, at most once per ``catalogMaxAge``, one catalog fetch
/// per provider (a page per 100 items).
public struct LogRevenueFigures: RevenueFiguresSource {
    /// Prices change rarely; an hour keeps the catalog's cost to a few requests an hour.
    public static let catalogMaxAge: Duration = .seconds(3600)

    let changes: any RevenueLogChangeSource
    let catalog: CatalogCache
    let catalogMaxAge: Duration
    let log = FollowedRevenueLog()

    public init(pool: PostgresPool, catalog: CatalogCache, catalogMaxAge: Duration = LogRevenueFigures.catalogMaxAge) {
        self.init(changes: PostgresRevenueLogChanges(pool: pool), catalog: catalog, catalogMaxAge: catalogMaxAge)
    }

    /// Reading the log from `changes`: a fake in unit tests.
    init(changes: any RevenueLogChangeSource, catalog: CatalogCache, catalogMaxAge: Duration = LogRevenueFigures.catalogMaxAge) {
        self.changes = changes
        self.catalog = catalog
        self.catalogMaxAge = catalogMaxAge
    }

    public func figures(asOf: Date) async throws -> RevenueFigures {
        if catalogIsStale { _ = await catalog.refresh() }
        let prices = PriceBook(items: catalog.contents.loaded.flatMap(\.items))
        let log = try await log.log(before: asOf, reading: changes)
        return RevenueFigures(rows: log.report(ReportPeriod.month(containing: asOf), prices: prices, asOf: asOf), eventsRead: log.rowsRead)
    }

    /// A provider never loaded, or the oldest load is older than ``catalogMaxAge``.
    var catalogIsStale: Bool {
        let contents = catalog.contents
        guard contents.allSourcesLoaded else { return true }
        let oldest = contents.loaded.map(\.fetchedAt).min() ?? catalog.now()
        return catalog.now() - oldest >= catalogMaxAge.inSeconds
    }
}
