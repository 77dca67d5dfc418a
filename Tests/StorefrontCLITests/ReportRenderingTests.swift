import Foundation
import BillingModel
import Entitlements
import Testing

@testable import StorefrontCLI

/// `storefront report`'s options and outputs, from rows made here: no database.
@Suite struct ReportRenderingTests {
    static let november = ReportPeriod(from: date("2026-11-01T00:00:00Z"), to: date("2026-12-01T00:00:00Z"), granularity: .week)

    @Test func defaultsToTheCurrentMonthByMonth() throws {
        let options = try ReportOptions(try CommandLineArguments(["report"]), now: Self.date("2026-11-17T09:30:00Z"))
        #expect(options.period == ReportPeriod(from: Self.date("2026-11-01T00:00:00Z"), to: Self.date("2026-12-01T00:00:00Z"), granularity: .month))
        #expect(options.format == .table)
        #expect(options.chartPath == nil)
    }

    @Test func rejectsWhatItCannotRead() {
        let now = Self.date("2026-11-17T09:30:00Z")
        #expect(throws: CommandLineArguments.UsageError.self) { try ReportOptions(try CommandLineArguments(["report", "--by", "hour"]), now: now) }
        #expect(throws: CommandLineArguments.UsageError.self) {
            try ReportOptions(try CommandLineArguments(["report", "--format", "xml"]), now: now)
        }
        #expect(throws: CommandLineArguments.UsageError.self) {
            try ReportOptions(try CommandLineArguments(["report", "--from", "November"]), now: now)
        }
        #expect(throws: CommandLineArguments.UsageError.self) {
            try ReportOptions(try CommandLineArguments(["report", "--from", "2026-12-01", "--to", "2026-11-01"]), now: now)
        }
    }

    @Test func theChartHasABarPerMovementALinePointPerBucketAxesAndALegend() {
        var first = RevenueReportRow(
            periodStart: Self.date("2026-11-02T00:00:00Z"), periodEnd: Self.date("2026-11-09T00:00:00Z"), provider: .paystack, currency: "NGN")
        first.newMRR = 400_000
        first.churnedMRR = 520_000
        first.activeSubscribersEnd = 2
        var second = first
        second.periodStart = Self.date("2026-11-09T00:00:00Z")
        second.newMRR = 0
        second.churnedMRR = 0
        second.expansionMRR = 1000
        second.activeSubscribersEnd = 3
        let svg = ReportChart.svg([first, second], period: Self.november, asOf: Self.date("2026-12-01T00:00:00Z"))

        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.hasSuffix("</svg>\n"))
        #expect(svg.components(separatedBy: "<title>new: ").count - 1 == 1)
        #expect(svg.components(separatedBy: "<title>churn: -").count - 1 == 1)
        #expect(svg.components(separatedBy: "<title>expansion: ").count - 1 == 1)
        // One subscriber point per bucket of the period (6 weeks, cut at its ends), empty buckets at 0.
        #expect(svg.components(separatedBy: " active</title></circle>").count - 1 == 6)
        #expect(svg.contains("<title>3 active</title>"))
        #expect(svg.contains("MRR movement (NGN a month)"))
        #expect(svg.contains(">active subscribers</text>"))
        #expect(svg.contains("paystack NGN"))
        for name in ["new", "expansion", "reactivation", "contraction", "churn"] { #expect(svg.contains(">\(name)</text>")) }
        // Gridlines on round amounts, evenly spaced on both sides of zero: a quarter of the ₦9,200.00
        // range rounds up to steps of ₦5,000.00, from -₦10,000.00 (below the -₦5,200.00 churn) to ₦5,000.00.
        for tick in ["-₦10,000.00", "-₦5,000.00", "₦0.00", "₦5,000.00"] { #expect(svg.contains(">\(tick)</text>")) }
        #expect(!svg.contains(">₦10,000.00</text>"))

        // Buckets from "as of" on are not drawn: halfway through the period, 3 of its 6 weeks.
        let partial = ReportChart.svg([first, second], period: Self.november, asOf: Self.date("2026-11-10T00:00:00Z"))
        #expect(partial.components(separatedBy: " active</title></circle>").count - 1 == 3)
    }

    @Test func csvHasOneLinePerRowInMinorUnits() {
        var row = RevenueReportRow(
            periodStart: Self.date("2026-11-01T00:00:00Z"), periodEnd: Self.date("2026-12-01T00:00:00Z"), provider: .lemonsqueezy, currency: "USD")
        row.mrrStart = 4500
        row.mrrEnd = 5500
        let lines = ReportRendering.csv([row]).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[1].contains(",lemonsqueezy,USD,4500,0,0,0,0,0,5500,"))
        #expect(ReportRendering.csvField("a,b") == "\"a,b\"")
    }

    @Test func theTableShowsMoneyInTheCurrencysFormat() {
        var row = RevenueReportRow(
            periodStart: Self.date("2026-11-01T00:00:00Z"), periodEnd: Self.date("2026-12-01T00:00:00Z"), provider: .lemonsqueezy, currency: "USD")
        row.mrrEnd = 5500
        let table = ReportRendering.table([row], period: Self.november, asOf: Self.date("2026-12-01T00:00:00Z"))
        #expect(table.contains("lemonsqueezy USD"))
        #expect(table.contains("$55.00"))
    }

    static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text) ?? .distantPast }
}

/// `storefront report --campaigns`: its option and its three formats, from rows made here.
@Suite struct CampaignRenderingTests {
    static let november = ReportPeriod(
        from: ReportRenderingTests.date("2026-11-01T00:00:00Z"), to: ReportRenderingTests.date("2026-12-01T00:00:00Z"), granularity: .month)
    static let asOf = ReportRenderingTests.date("2026-12-01T00:00:00Z")

    static var rows: [CampaignReportRow] {
        var spring = CampaignReportRow(periodStart: november.from, periodEnd: november.to, ref: "spring")
        spring.checkoutsOpened = 5
        spring.checkoutsCompleted = 4
        spring.newSubscriptions = 3
        spring.newMRR = ["USD": 3500, "NGN": 520_000]
        var untagged = CampaignReportRow(periodStart: november.from, periodEnd: november.to, ref: nil)
        untagged.checkoutsOpened = 2
        untagged.oneTimePurchases = 1
        return [spring, untagged]
    }

    @Test func theOptionTakesNoValueAndNoChart() throws {
        let now = ReportRenderingTests.date("2026-11-17T09:30:00Z")
        #expect(try ReportOptions(try CommandLineArguments(["report", "--campaigns"]), now: now).campaigns)
        #expect(try ReportOptions(try CommandLineArguments(["report", "--campaigns", "--by", "week"]), now: now).campaigns)
        #expect(try !ReportOptions(try CommandLineArguments(["report"]), now: now).campaigns)
        #expect(throws: CommandLineArguments.UsageError.self) {
            try ReportOptions(try CommandLineArguments(["report", "--campaigns", "spring"]), now: now)
        }
        #expect(throws: CommandLineArguments.UsageError.self) {
            try ReportOptions(try CommandLineArguments(["report", "--campaigns", "--chart", "x.svg"]), now: now)
        }
    }

    @Test func theTableHasAColumnPerTagAndALinePerCurrency() {
        let table = ReportRendering.table(Self.rows, period: Self.november, asOf: Self.asOf)
        let lines = table.split(separator: "\n").map(String.init)
        #expect(lines.first == "campaigns 2026-11-01 to 2026-12-01 by month, as of \(Timestamp.format(Self.asOf))")
        #expect(lines.contains { $0.hasSuffix("spring  (none)") })
        #expect(lines.contains { $0.hasPrefix("checkouts opened") && $0.hasSuffix("5       2") })
        #expect(lines.contains { $0.hasPrefix("new MRR NGN") && $0.contains("₦5,200.00") })
        #expect(lines.contains { $0.hasPrefix("new MRR USD") && $0.contains("$35.00") && $0.hasSuffix("$0.00") })
        #expect(
            ReportRendering.table([CampaignReportRow](), period: Self.november, asOf: Self.asOf).hasSuffix(
                "no checkouts or purchases from checkouts in this period"))
    }

    @Test func csvHasAColumnPerCurrencyInMinorUnits() {
        let lines = ReportRendering.csv(Self.rows).split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "period_start,period_end,ref,checkouts_opened,checkouts_completed,new_subscriptions,one_time_purchases,new_mrr_NGN,new_mrr_USD",
                "\(Timestamp.format(Self.november.from)),\(Timestamp.format(Self.november.to)),spring,5,4,3,0,520000,3500",
                "\(Timestamp.format(Self.november.from)),\(Timestamp.format(Self.november.to)),(none),2,0,0,1,0,0",
            ])
    }

    @Test func jsonNamesTheUntaggedNullAndNewMRRByCurrency() throws {
        let text = try ReportRendering.json(Self.rows, period: Self.november, asOf: Self.asOf)
        let decoded = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        let campaigns = try #require(decoded?["campaigns"] as? [[String: Any]])
        #expect(campaigns.count == 2)
        #expect(campaigns[0]["ref"] as? String == "spring")
        #expect(((campaigns[0]["new_mrr"] as? [String: Any])?["USD"] as? NSNumber)?.int64Value == 3500)
        #expect(campaigns[1]["ref"] is NSNull)
        #expect((campaigns[1]["one_time_purchases"] as? NSNumber)?.intValue == 1)
        #expect((campaigns[1]["new_mrr"] as? [String: Any])?.isEmpty == true)
    }
}

/// `storefront report --storefronts` and `--commission`: the options, and the rates.
@Suite struct StorefrontReportOptionsTests {
    static let now = ReportRenderingTests.date("2026-11-17T09:30:00Z")

    func options(_ arguments: [String]) throws -> ReportOptions { try ReportOptions(try CommandLineArguments(["report"] + arguments), now: Self.now) }

    @Test func theReportTakesRatesAndRefusesWhatDoesNotFit() throws {
        let chosen = try options(["--storefronts", "--commission", "usa=0.27, NLD=0.1,*=0.05"])
        #expect(chosen.storefronts && !chosen.campaigns)
        #expect(chosen.commission.rate(for: "USA") == 2_700 && chosen.commission.rate(for: "nld") == 1_000)
        #expect(chosen.commission.rate(for: "JPN") == 500)
        #expect(try options(["--storefronts"]).commission.rate(for: "USA") == 0, "no rate unless given")
        for refused in [
            ["--storefronts", "--campaigns"], ["--commission", "USA=0.27"], ["--storefronts", "--chart", "x.svg"],
            ["--storefronts", "--commission", "US=0.27"], ["--storefronts", "--commission", "USA=27%"],
            ["--storefronts", "--commission", "USA=1.5"], ["--storefronts", "--commission", "USA=0.12345"],
            ["--storefronts", "--commission", "USA"], ["--storefronts", "--commission", "USA=-0.1"],
        ] {
            #expect(throws: CommandLineArguments.UsageError.self, "\(refused)") { try options(refused) }
        }
    }

    @Test func ratesAreExactAndRoundHalfAwayFromZero() throws {
        #expect(CommissionRates.commission(on: 500, basisPoints: 2_700) == 135)
        #expect(CommissionRates.commission(on: 999, basisPoints: 1_500) == 150, "149.85 rounds up")
        #expect(CommissionRates.commission(on: 1, basisPoints: 5_000) == 1, "0.5 rounds away from zero")
        #expect(CommissionRates.commission(on: -1, basisPoints: 5_000) == -1, "a net refund owes back")
        #expect(CommissionRates.commission(on: .max, basisPoints: 10_000) == .max, "saturates")
        #expect(CommissionRates.format(basisPoints: 2_700) == "0.27" && CommissionRates.format(basisPoints: 0) == "0")
        #expect(CommissionRates.format(basisPoints: 10_000) == "1" && CommissionRates.format(basisPoints: 5) == "0.0005")
        #expect(try CommissionRates(parsing: "USA=1").rate(for: "USA") == 10_000)
        #expect(try CommissionRates(parsing: "USA=.5").rate(for: "USA") == 5_000)
    }
}
