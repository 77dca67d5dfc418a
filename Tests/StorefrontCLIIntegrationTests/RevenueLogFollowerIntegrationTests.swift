import Catalog
import Foundation
import BillingModel
import Entitlements
import Postgres
import ProjectionStore
@testable import ReconcilerService
import ServiceRuntime
import ServiceSettings
import StorefrontCLI
import Telemetry
import TestSupport
import Testing

/// The revenue gauges read incrementally (``RevenueLogFollower``, projection
/// migration 22) over a real PostgreSQL: while the hand-computed history is
/// logged, computed every few rows at moments that cross two month ends,
/// each computation equals `RevenueLog.read` and `report` over the whole
/// log at the same moment; and a row whose transaction commits after a
/// later one's (the projector's transactions do) is not missed.
@Suite struct RevenueLogFollowerIntegrationTests {
    let logger = Logger(service: "cli-tests", minimumLevel: .critical)

    static func paystack(_ id: String, created at: Date) -> BillingEvent {
        var e = BillingEvent(kind: .subscriptionCreated, provider: .paystack, providerEventName: "ps", entityKey: "paystack:CUS_\(id)")
        (e.subscriptionID, e.status, e.productID, e.variantID, e.currency, e.createdAt, e.orderingTimestamp) = (
            id, "active", "PLN_m", "PLN_m", "NGN", at, at
        )
        e.recurringPrice = RecurringPrice(amount: 500_000, currency: "NGN", interval: BillingInterval(unit: .month))
        return e
    }

    @Test func incrementalFiguresEqualTheFullReadsAsTheLogGrows() async throws {
        try await FreshDatabase.with(prefix: "test_revenue_follow") { pool, url in
            _ = try await MigrateCommand.run(environment: Environment(["DATABASE_URL": url]), logger: logger)
            let catalog = CatalogCache(sources: [RevenueGaugesFixtureTests.FixtureCatalog()], logger: logger)
            let gauges = LogRevenueFigures(pool: pool, catalog: catalog)
            var reads: [(incremental: Int, full: Int)] = []
            func check(at asOf: Date) async throws -> [RevenueReportRow] {
                let incremental = try await gauges.figures(asOf: asOf)
                let full = try await RevenueLog.read(from: pool, before: asOf)
                let expected = full.report(ReportPeriod.month(containing: asOf), prices: RevenueReportFixtureTests.catalog, asOf: asOf)
                #expect(incremental.rows == expected, "as of \(asOf)")
                reads.append((incremental.eventsRead, full.rowsRead))
                return expected
            }
            let date = RevenueReportFixtureTests.date
            // From October to December: the gauges show the month holding each moment.
            let moments = [
                date(10, 20, 12), date(10, 31, 23), date(11, 1, 1), date(11, 10, 12), date(11, 20, 12), date(11, 30, 23), date(12, 1, 1),
                date(12, 2, 12),
            ]
            var step = 0
            try await RevenueReportFixtureTests.logHistory(pool) { logged in
                guard logged % 3 == 0, step < moments.count else { return }
                _ = try await check(at: moments[step])
                step += 1
            }
            #expect(step == moments.count)

            // P9's transaction takes its id before P10's and commits after it.
            let late = date(12, 3, 12)
            try await pool.withConnection { open in
                try await open.execute("BEGIN")
                try await open.execute(RevenueReportFixtureTests.insertion(Self.paystack("P9", created: date(11, 3, 12)), key: "P9a", offset: 100))
                try await RevenueReportFixtureTests.insert(Self.paystack("P10", created: date(11, 4, 12)), key: "P10a", offset: 101, pool: pool)
                _ = try await check(at: late)
                try await open.execute("COMMIT")
            }
            let rows = try await check(at: late.addingTimeInterval(60))
            // Both new subscriptions pay into December's NGN MRR: P1 and P2 of the history, then P9 and P10.
            let naira = rows.first(where: { $0.provider == .paystack && $0.currency == "NGN" })
            #expect(naira?.mrrEnd == 1_900_000)
            // What each computation read, incremental against full. Not asserted: the
            // overlap grows while other tests' transactions are open (the watermark is the cluster's).
            print("revenue log rows read (incremental/full):", reads.map { "\($0.incremental)/\($0.full)" }.joined(separator: " "))
        }
    }
}
