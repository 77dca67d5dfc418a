import Foundation
import Entitlements

/// `storefront report`'s options: the period (`--from`, `--to`: a date
/// `2026-11-01` at 00:00 UTC, or an RFC 3339 time; `--to` is exclusive;
/// default the current month), `--by day|week|month` (default month),
/// `--format table|csv|json` (default table), `--chart FILE.svg`, and
/// `--catalog FILE` (a saved `GET /api/products` answer: the prices of
/// subscriptions whose events do not state one), `--campaigns` (the
/// figures per checkout `ref` instead of per provider and currency; no chart),
/// or `--storefronts` (what checkouts from each App Store storefront charged
/// and refunded, with `--commission CODE=RATE,…` what would be owed; no chart).
public struct ReportOptions: Sendable, Equatable {
    public enum Format: String, Sendable, CaseIterable { case table, csv, json }

    public var period: ReportPeriod
    public var format: Format
    public var chartPath: String?
    public var catalogPath: String?
    /// `--campaigns`: the report by campaign (``CampaignReportRow``).
    public var campaigns: Bool
    /// `--storefronts`: what linked checkouts charged per App Store storefront
    /// (``ProjectionStore/StorefrontSalesLog``), and with `--commission` what
    /// would be owed.
    public var storefronts: Bool
    /// `--commission USA=0.27,…`: the rates per storefront (none by default).
    public var commission: CommissionRates

    public init(_ arguments: CommandLineArguments, now: Date) throws(CommandLineArguments.UsageError) {
        let by = try Self.choice(arguments.options["by"], default: ReportPeriod.Granularity.month, name: "by")
        let month = ReportPeriod.month(containing: now, granularity: by)
        let from =
            try arguments.options["from"].map { text throws(CommandLineArguments.UsageError) in try Self.date(text, name: "from") } ?? month.from
        let to = try arguments.options["to"].map { text throws(CommandLineArguments.UsageError) in try Self.date(text, name: "to") } ?? month.to
        guard from < to else { throw .init(description: "--from must be before --to") }
        period = ReportPeriod(from: from, to: to, granularity: by)
        format = try Self.choice(arguments.options["format"], default: Format.table, name: "format")
        chartPath = arguments.options["chart"]
        catalogPath = arguments.options["catalog"]
        campaigns = try Self.flag(arguments.options["campaigns"], name: "campaigns")
        storefronts = try Self.flag(arguments.options["storefronts"], name: "storefronts")
        commission = CommissionRates()
        if let text = arguments.options["commission"] {
            do { commission = try CommissionRates(parsing: text) } catch { throw .init(description: "--commission: \(error.description)") }
        }
        if campaigns, storefronts { throw .init(description: "--campaigns and --storefronts are two reports: choose one") }
        if commission != CommissionRates(), !storefronts { throw .init(description: "--commission is for --storefronts") }
        // The chart draws MRR movements and subscribers per provider and
        // currency, which the campaign and storefront figures are not.
        if campaigns || storefronts, chartPath != nil {
            throw .init(description: "--chart draws the revenue figures: leave out --campaigns and --storefronts")
        }
    }

    /// A switch: absent or `false`, or present (`true`).
    static func flag(_ text: String?, name: String) throws(CommandLineArguments.UsageError) -> Bool {
        switch text?.lowercased() {
        case nil, "false": return false
        case "true": return true
        default: throw .init(description: "--\(name) takes no value, or true or false")
        }
    }

    static func choice<T: RawRepresentable & CaseIterable>(
        _ text: String?, default value: T, name: String
    ) throws(CommandLineArguments.UsageError) -> T
    where T.RawValue == String {
        guard let text else { return value }
        guard let chosen = T(rawValue: text) else {
            throw .init(description: "--\(name) must be one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return chosen
    }

    /// `YYYY-MM-DD` (midnight UTC) or an RFC 3339 time.
    static func date(_ text: String, name: String) throws(CommandLineArguments.UsageError) -> Date {
        let day = DateFormatter()
        day.locale = Locale(identifier: "en_US_POSIX")
        day.timeZone = TimeZone(identifier: "UTC")
        day.dateFormat = "yyyy-MM-dd"
        if text.count == 10, let date = day.date(from: text) { return date }
        if let date = ISO8601DateFormatter().date(from: text) { return date }
        throw .init(description: "--\(name) is not a date (YYYY-MM-DD or RFC 3339): \(text)")
    }
}
