import Foundation
import BillingModel
import Entitlements
import ProjectionStore

/// The report by App Store storefront (`--storefronts`): one line per
/// storefront and currency with what its linked checkouts' purchases
/// charged and gave back in the period, the net, the commission rate
/// (`--commission`, none by default) and what it would owe. Money in CSV and
/// JSON is in minor units; rates are decimal text (`0.27`).
extension ReportRendering {
    /// One storefront and currency's line, every figure every format shows.
    struct StorefrontLine {
        var sales: StorefrontSalesLog.Sales
        var net: Int64
        var rate: Int
        var owed: Int64

        init(_ sales: StorefrontSalesLog.Sales, commission: CommissionRates) {
            self.sales = sales
            net = sales.charged.subtractingSaturating(sales.refunded)
            rate = commission.rate(for: sales.storefront)
            owed = CommissionRates.commission(on: net, basisPoints: rate)
        }
    }

    static func render(_ sales: [StorefrontSalesLog.Sales], options: ReportOptions, asOf: Date, format: ReportOptions.Format) throws -> String {
        let lines = sales.map { StorefrontLine($0, commission: options.commission) }
        switch format {
        case .table: return storefrontTable(lines, period: options.period, asOf: asOf)
        case .csv: return storefrontCSV(lines)
        case .json: return try storefrontJSON(lines, period: options.period, asOf: asOf)
        }
    }

    /// Column headers and keys, in the order every format shows them.
    static let storefrontColumns: [(header: String, key: String)] = [
        ("storefront", "storefront"), ("currency", "currency"), ("purchases", "purchases"), ("renewals", "renewals"),
        ("charged", "charged"), ("refunds", "refunds"), ("refunded", "refunded"), ("net", "net"), ("rate", "commission_rate"),
        ("owed", "owed"),
    ]

    static func storefrontTable(_ lines: [StorefrontLine], period: ReportPeriod, asOf: Date) -> String {
        var text = ["linked checkouts by App Store storefront \(day(period.from)) to \(day(period.to)), as of \(Timestamp.format(asOf))"]
        guard !lines.isEmpty else {
            return (text + ["no purchases through checkouts from an App Store storefront in this period"]).joined(separator: "\n")
        }
        let rows = lines.map { line -> [String] in
            let money = { (amount: Int64) in MoneyFormatter.format(minorUnits: amount, currency: line.sales.currency) }
            return [
                line.sales.storefront, line.sales.currency, String(line.sales.purchases), String(line.sales.renewals), money(line.sales.charged),
                String(line.sales.refunds), money(line.sales.refunded), money(line.net), CommissionRates.format(basisPoints: line.rate),
                money(line.owed),
            ]
        }
        let headers = storefrontColumns.map(\.header)
        let widths = headers.indices.map { index in max(headers[index].count, rows.map { $0[index].count }.max() ?? 0) }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index < 2 ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0) : pad(cell, widths[index])
            }.joined(separator: "  ")
        }
        text.append(line(headers))
        text += rows.map(line)
        text.append("charged: one-time purchases and subscription payments; net: charged less refunded; owed: net at the rate (--commission)")
        return text.joined(separator: "\n")
    }

    static func storefrontCSV(_ lines: [StorefrontLine]) -> String {
        let rows = lines.map { line in
            [
                line.sales.storefront, line.sales.currency, String(line.sales.purchases), String(line.sales.renewals), String(line.sales.charged),
                String(line.sales.refunds), String(line.sales.refunded), String(line.net), CommissionRates.format(basisPoints: line.rate),
                String(line.owed),
            ].map(csvField).joined(separator: ",")
        }
        return ([storefrontColumns.map(\.key).joined(separator: ",")] + rows).joined(separator: "\n")
    }

    static func storefrontJSON(_ lines: [StorefrontLine], period: ReportPeriod, asOf: Date) throws -> String {
        let root: [String: JSONValueBox] = [
            "from": .text(Timestamp.format(period.from)), "to": .text(Timestamp.format(period.to)), "as_of": .text(Timestamp.format(asOf)),
            "storefronts": .list(
                lines.map { line in
                    .object([
                        "storefront": .text(line.sales.storefront), "currency": .text(line.sales.currency),
                        "purchases": .number(Int64(line.sales.purchases)), "renewals": .number(Int64(line.sales.renewals)),
                        "charged": .number(line.sales.charged), "refunds": .number(Int64(line.sales.refunds)),
                        "refunded": .number(line.sales.refunded), "net": .number(line.net),
                        "commission_rate": .text(CommissionRates.format(basisPoints: line.rate)), "owed": .number(line.owed),
                    ])
                }),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(JSONValueBox.object(root)), as: UTF8.self)
    }
}
