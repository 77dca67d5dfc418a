import Foundation
import BillingModel
import Entitlements

/// The report by campaign (`--campaigns`) as text: a table per bucket, a
/// column per tag; CSV with one line per bucket and tag and a `new_mrr_<CUR>`
/// column per currency; or JSON, `new_mrr` an object by currency. Money in
/// CSV and JSON is in minor units. Checkouts without a tag are the tag
/// "(none)" (JSON: `null`): refs are 1–64 of `A-Z a-z 0-9 . _ ~ -`, so no
/// tag can be spelled so.
extension ReportRendering {
    static let untagged = "(none)"

    /// The counts, in the order every format shows them: the table's label, the CSV and JSON key.
    static let campaignCounts: [(label: String, key: String, value: @Sendable (CampaignReportRow) -> Int)] = [
        ("checkouts opened", "checkouts_opened", { $0.checkoutsOpened }),
        ("checkouts completed", "checkouts_completed", { $0.checkoutsCompleted }),
        ("new subscriptions", "new_subscriptions", { $0.newSubscriptions }),
        ("one-time purchases", "one_time_purchases", { $0.oneTimePurchases }),
    ]

    static func render(_ rows: [CampaignReportRow], options: ReportOptions, asOf: Date, format: ReportOptions.Format) throws -> String {
        switch format {
        case .table: table(rows, period: options.period, asOf: asOf)
        case .csv: csv(rows)
        case .json: try json(rows, period: options.period, asOf: asOf)
        }
    }

    /// Per bucket: one line per figure (new MRR one per currency), one column per tag.
    static func table(_ rows: [CampaignReportRow], period: ReportPeriod, asOf: Date) -> String {
        var lines = ["campaigns \(day(period.from)) to \(day(period.to)) by \(period.granularity.rawValue), as of \(Timestamp.format(asOf))"]
        guard !rows.isEmpty else { return (lines + ["no checkouts or purchases from checkouts in this period"]).joined(separator: "\n") }
        let currencies = currencies(rows)
        var figures: [(label: String, display: (CampaignReportRow) -> String)] = campaignCounts.map { count in
            (label: count.label, display: { String(count.value($0)) })
        }
        if currencies.isEmpty { figures.append((label: "new MRR", display: { _ in "0" })) }
        for currency in currencies {
            figures.append(
                (label: "new MRR \(currency)", display: { MoneyFormatter.format(minorUnits: $0.newMRR[currency] ?? 0, currency: currency) }))
        }
        let labelWidth = figures.map(\.label.count).max() ?? 0
        for bucket in Dictionary(grouping: rows, by: \.periodStart).sorted(by: { $0.key < $1.key }) {
            let columns = bucket.value
            lines.append("")
            lines.append("\(day(bucket.key)) to \(moment(columns[0].periodEnd))")
            let headers = columns.map { $0.ref ?? untagged }
            let widths = columns.indices.map { index in
                max(headers[index].count, figures.map { $0.display(columns[index]).count }.max() ?? 0)
            }
            func line(_ label: String, _ cells: [String]) -> String {
                let padded = label.padding(toLength: labelWidth, withPad: " ", startingAt: 0)
                return ([padded] + cells.enumerated().map { pad($0.element, widths[$0.offset]) }).joined(separator: "  ")
            }
            lines.append(line("", headers))
            for figure in figures { lines.append(line(figure.label, columns.map(figure.display))) }
        }
        return lines.joined(separator: "\n")
    }

    static func csv(_ rows: [CampaignReportRow]) -> String {
        let currencies = currencies(rows)
        let header = ["period_start", "period_end", "ref"] + campaignCounts.map(\.key) + currencies.map { "new_mrr_\($0)" }
        let lines = rows.map { row in
            ([Timestamp.format(row.periodStart), Timestamp.format(row.periodEnd), row.ref ?? untagged]
                + campaignCounts.map { String($0.value(row)) } + currencies.map { String(row.newMRR[$0] ?? 0) }).map(csvField)
                .joined(separator: ",")
        }
        return ([header.map(csvField).joined(separator: ",")] + lines).joined(separator: "\n")
    }

    static func json(_ rows: [CampaignReportRow], period: ReportPeriod, asOf: Date) throws -> String {
        var root: [String: JSONValueBox] = [
            "from": .text(Timestamp.format(period.from)), "to": .text(Timestamp.format(period.to)),
            "by": .text(period.granularity.rawValue), "as_of": .text(Timestamp.format(asOf)),
        ]
        root["campaigns"] = .list(
            rows.map { row in
                var fields: [String: JSONValueBox] = [
                    "period_start": .text(Timestamp.format(row.periodStart)), "period_end": .text(Timestamp.format(row.periodEnd)),
                    "ref": row.ref.map { JSONValueBox.text($0) } ?? .null,
                ]
                for count in campaignCounts { fields[count.key] = .number(Int64(count.value(row))) }
                fields["new_mrr"] = .object(row.newMRR.mapValues { .number($0) })
                return .object(fields)
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(JSONValueBox.object(root)), as: UTF8.self)
    }

    /// Every currency with new MRR anywhere in the report, in text order: the same lines or columns in every bucket.
    static func currencies(_ rows: [CampaignReportRow]) -> [String] {
        Set(rows.flatMap(\.newMRR.keys)).sorted()
    }
}
