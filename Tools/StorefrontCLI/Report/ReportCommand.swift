import ServiceSettings
import Foundation
import BillingModel
import Postgres
import Entitlements
import ProjectionStore
import ServiceRuntime

/// `storefront report`: the seller's revenue figures for a period, per
/// provider and currency, from the event log in PostgreSQL (`DATABASE_URL`;
/// the `storefront_readonly` role is enough), or with `--campaigns` per
/// checkout `ref`, or with `--storefronts` per App Store storefront. Options: ``ReportOptions``; definitions: docs/revenue.md.
public enum ReportCommand {
    /// Why a report could not be made from what it was given.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public static func run(
        _ arguments: CommandLineArguments, environment: Environment, now: Date = Date(),
        output: @Sendable (String) -> Void
    ) async throws {
        let options = try ReportOptions(arguments, now: now)
        var reader = ConfigReader(environment, declared: StorefrontCLIBinary.report)
        let url = reader.required.string(.databaseURL)
        let limits = PostgresSessionLimits.fromEnvironment(&reader, defaults: .maintenance)
        try reader.finish()
        let prices = try options.catalogPath.map(catalogPrices) ?? PriceBook()

        var database = try PostgresConfiguration(url: url)
        database.limits = limits
        let pool = PostgresPool(configuration: database)
        let asOf = min(now, options.period.to)
        let text: String
        var chart: String?
        do {
            if options.storefronts {
                let sales = try await StorefrontSalesLog.read(options.period, pool: pool, asOf: now)
                text = try ReportRendering.render(sales, options: options, asOf: asOf, format: options.format)
            } else if options.campaigns {
                let rows = try await campaigns(options.period, pool: pool, prices: prices, asOf: now)
                text = try ReportRendering.render(rows, options: options, asOf: asOf, format: options.format)
            } else {
                let rows = try await report(options.period, pool: pool, prices: prices, asOf: now)
                let grants = try await GrantLog.report(options.period, pool: pool, asOf: now)
                text = try ReportRendering.render(rows, grants: grants, options: options, asOf: asOf, format: options.format)
                if options.chartPath != nil { chart = ReportChart.svg(rows, period: options.period, asOf: asOf) }
            }
        } catch {
            await pool.close()
            throw error
        }
        await pool.close()
        output(text)
        if let path = options.chartPath, let chart {
            try Data(chart.utf8).write(to: URL(fileURLWithPath: path))
        }
    }

    /// The rows for `period` from the log, figures stopping at `asOf`.
    public static func report(_ period: ReportPeriod, pool: PostgresPool, prices: PriceBook, asOf: Date) async throws -> [RevenueReportRow] {
        try await RevenueLog.report(period, pool: pool, prices: prices, asOf: asOf)
    }

    /// The rows by campaign (`--campaigns`) for `period`, figures stopping at `asOf`.
    public static func campaigns(_ period: ReportPeriod, pool: PostgresPool, prices: PriceBook, asOf: Date) async throws -> [CampaignReportRow] {
        try await CampaignLog.report(period, pool: pool, prices: prices, asOf: asOf)
    }

    /// A saved `GET /api/products` answer as prices.
    static func catalogPrices(_ path: String) throws -> PriceBook {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw Failure(description: "--catalog \(path) cannot be read: \(error.localizedDescription)")
        }
        do {
            return PriceBook(catalog: try JSONDecoder().decode(ProductListResponse.self, from: data))
        } catch {
            throw Failure(description: "--catalog \(path) is not a GET /api/products answer: \(error)")
        }
    }
}
