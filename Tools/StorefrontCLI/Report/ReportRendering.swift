import Foundation
import BillingModel
import Entitlements
import ProjectionStore

/// The report as text: a table per bucket for people, CSV with one line per
/// row, or JSON. Money in CSV and JSON is in minor units of the row's currency.
enum ReportRendering {
    /// - Parameter grants: promotional grants, never money: a section of
    ///   their own in the table and in JSON (`grants`); CSV keeps one shape
    ///   per line, revenue only.
    static func render(
        _ rows: [RevenueReportRow], grants: [GrantLog.Row] = [], options: ReportOptions, asOf: Date, format: ReportOptions.Format
    ) throws -> String {
        switch format {
        case .table: table(rows, period: options.period, asOf: asOf) + grantsTable(grants)
        case .csv: csv(rows)
        case .json: try json(rows, grants: grants, period: options.period, asOf: asOf)
        }
    }

    /// The grants section: one line per entitlement, after the revenue.
    static func grantsTable(_ grants: [GrantLog.Row]) -> String {
        guard !grants.isEmpty else { return "" }
        let width = max("entitlement".count, grants.map { $0.entitlement.count }.max() ?? 0)
        func name(_ text: String) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
        var lines = ["", "promotional grants (not revenue)", name("entitlement") + "  given  revoked  running at end"]
        for row in grants {
            let counts = [pad(String(row.given), 5), pad(String(row.revoked), 7), pad(String(row.runningAtEnd), 14)]
            lines.append(([name(row.entitlement)] + counts).joined(separator: "  "))
        }
        return "\n" + lines.joined(separator: "\n")
    }

    /// Per bucket: one line per figure, one column per provider and currency.
    static func table(_ rows: [RevenueReportRow], period: ReportPeriod, asOf: Date) -> String {
        var lines = ["revenue \(day(period.from)) to \(day(period.to)) by \(period.granularity.rawValue), as of \(Timestamp.format(asOf))"]
        guard !rows.isEmpty else { return (lines + ["no subscriptions, refunds or disputes in this period"]).joined(separator: "\n") }
        let labelWidth = ReportFigure.allCases.map(\.label.count).max() ?? 0
        for bucket in Dictionary(grouping: rows, by: \.periodStart).sorted(by: { $0.key < $1.key }) {
            let columns = bucket.value
            lines.append("")
            lines.append("\(day(bucket.key)) to \(moment(columns[0].periodEnd))")
            let headers = columns.map { "\($0.provider.rawValue) \($0.currency)" }
            let widths = columns.indices.map { index in
                max(headers[index].count, ReportFigure.allCases.map { $0.display(columns[index]).count }.max() ?? 0)
            }
            func line(_ label: String, _ cells: [String]) -> String {
                let padded = label.padding(toLength: labelWidth, withPad: " ", startingAt: 0)
                return ([padded] + cells.enumerated().map { pad($0.element, widths[$0.offset]) }).joined(separator: "  ")
            }
            lines.append(line("", headers))
            for figure in ReportFigure.allCases { lines.append(line(figure.label, columns.map(figure.display))) }
        }
        return lines.joined(separator: "\n")
    }

    static func csv(_ rows: [RevenueReportRow]) -> String {
        let header = ["period_start", "period_end", "provider", "currency"] + ReportFigure.allCases.map(\.key)
        let lines = rows.map { row in
            ([Timestamp.format(row.periodStart), Timestamp.format(row.periodEnd), row.provider.rawValue, row.currency]
                + ReportFigure.allCases.map { String($0.value(row)) }).map(csvField).joined(separator: ",")
        }
        return ([header.joined(separator: ",")] + lines).joined(separator: "\n")
    }

    static func json(_ rows: [RevenueReportRow], grants: [GrantLog.Row] = [], period: ReportPeriod, asOf: Date) throws -> String {
        var root: [String: JSONValueBox] = [
            "from": .text(Timestamp.format(period.from)), "to": .text(Timestamp.format(period.to)),
            "by": .text(period.granularity.rawValue), "as_of": .text(Timestamp.format(asOf)),
        ]
        root["rows"] = .list(
            rows.map { row in
                var fields: [String: JSONValueBox] = [
                    "period_start": .text(Timestamp.format(row.periodStart)), "period_end": .text(Timestamp.format(row.periodEnd)),
                    "provider": .text(row.provider.rawValue), "currency": .text(row.currency),
                ]
                for figure in ReportFigure.allCases { fields[figure.key] = .number(figure.value(row)) }
                return .object(fields)
            })
        root["grants"] = .list(
            grants.map { row in
                .object([
                    "entitlement": .text(row.entitlement), "given": .number(Int64(row.given)), "revoked": .number(Int64(row.revoked)),
                    "running_at_end": .number(Int64(row.runningAtEnd)),
                ])
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(JSONValueBox.object(root)), as: UTF8.self)
    }

    /// RFC 4180: quoted when it holds a comma, quote or line break.
    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func pad(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }

    static func day(_ date: Date) -> String { String(Timestamp.format(date).prefix(10)) }

    /// The day at midnight UTC, else the full time (a bucket cut at "as of").
    static func moment(_ date: Date) -> String {
        date == ReportPeriod.floor(date, to: .day) ? day(date) : Timestamp.format(date)
    }
}

/// The few JSON shapes the report writes, encodable in a stable key order.
enum JSONValueBox: Encodable {
    case text(String)
    case null
    case number(Int64)
    case list([JSONValueBox])
    case object([String: JSONValueBox])

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .null: try container.encodeNil()
        case .number(let number): try container.encode(number)
        case .list(let list): try container.encode(list)
        case .object(let object): try container.encode(object)
        }
    }
}
