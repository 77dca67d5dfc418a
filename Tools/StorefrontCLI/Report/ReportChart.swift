import Foundation
import BillingModel
import Entitlements

/// `storefront report --chart FILE.svg`: one panel per provider and currency
/// (currencies are never summed), each with the MRR movements of every
/// bucket as stacked bars (new, expansion and reactivation up from zero;
/// contraction and churn down) and the active subscribers at each bucket's
/// end as a line on its own right-hand axis. Plain SVG 1.1 written here, no
/// scripts or outside fonts, so it shows the same in a browser and on GitHub.
enum ReportChart {
    static let width = 760.0
    static let panelHeight = 300.0
    static let margin = (left: 86.0, right: 64.0, top: 46.0, bottom: 58.0)

    /// The movement series, bottom-up on each side of zero, with their colours.
    static let series: [(name: String, colour: String, value: @Sendable (RevenueReportRow) -> Int64)] = [
        ("new", "#2e7d32", { $0.newMRR }),
        ("expansion", "#66bb6a", { $0.expansionMRR }),
        ("reactivation", "#1565c0", { $0.reactivationMRR }),
        ("contraction", "#ef6c00", { -$0.contractionMRR }),
        ("churn", "#c62828", { -$0.churnedMRR }),
    ]
    static let lineColour = "#37474f"

    /// - Parameter asOf: buckets from then on are not drawn (nothing is known of them yet).
    static func svg(_ rows: [RevenueReportRow], period: ReportPeriod, asOf: Date) -> String {
        let groups = Dictionary(grouping: rows) { "\($0.provider.rawValue) \($0.currency)" }.sorted { $0.key < $1.key }
        let buckets = period.buckets.map(\.start).filter { $0 < asOf }
        let height = max(1, Double(groups.count)) * panelHeight + 40
        var svg = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(format(width))\" height=\"\(format(height))\" viewBox=\"0 0 \(format(width)) \(format(height))\" font-family=\"sans-serif\" font-size=\"12\">",
            "<title>MRR movements and active subscribers, \(day(period.from)) to \(day(period.to)) by \(period.granularity.rawValue)</title>",
            "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>",
        ]
        if groups.isEmpty {
            svg.append("<text x=\"20\" y=\"30\">No subscriptions, refunds or disputes in this period.</text>")
        }
        for (index, group) in groups.enumerated() {
            svg += panel(group.key, rows: group.value, buckets: buckets, top: Double(index) * panelHeight)
        }
        svg.append(legend(top: height - 30))
        svg.append("</svg>")
        return svg.joined(separator: "\n") + "\n"
    }

    static func panel(_ title: String, rows: [RevenueReportRow], buckets: [Date], top: Double) -> [String] {
        let currency = rows.first?.currency ?? ""
        let byStart = Dictionary(rows.map { ($0.periodStart, $0) }, uniquingKeysWith: { first, _ in first })
        let plot = (x: margin.left, y: top + margin.top, w: width - margin.left - margin.right, h: panelHeight - margin.top - margin.bottom)
        let up = buckets.map { start in series.map { byStart[start].map($0.value) ?? 0 }.filter { $0 > 0 }.reduce(0, +) }
        let down = buckets.map { start in series.map { byStart[start].map($0.value) ?? 0 }.filter { $0 < 0 }.reduce(0, +) }
        // One round step for both sides of zero, so gridlines are evenly spaced.
        let step = niceCeiling(max(1, (max(up.max() ?? 0, 1) - (down.min() ?? 0)) / 4))
        let top = ceilingMultiple(max(up.max() ?? 0, 1), of: step), bottom = -ceilingMultiple(-(down.min() ?? 0), of: step)
        let y = { (value: Int64) in plot.y + plot.h * Double(top - value) / Double(top - bottom) }
        let subscribers = buckets.map { byStart[$0]?.activeSubscribersEnd ?? 0 }
        let subscriberTop = Int64(max(1, subscribers.max() ?? 0))
        let ySubscribers = { (count: Int) in plot.y + plot.h * (1 - Double(count) / Double(subscriberTop)) }
        let slot = plot.w / Double(max(1, buckets.count))
        let barWidth = min(slot * 0.6, 48)
        let labelEvery = max(1, Int((Double(buckets.count) / 10).rounded(.up)))
        var out = ["<g>", "<text x=\"\(format(plot.x))\" y=\"\(format(plot.y - 18))\" font-size=\"14\" font-weight=\"bold\">\(escape(title))</text>"]
        // Axes, zero line, gridlines with labels in the currency.
        for tick in stride(from: bottom, through: top, by: Int64.Stride(step)) {
            out.append(
                "<line x1=\"\(format(plot.x))\" x2=\"\(format(plot.x + plot.w))\" y1=\"\(format(y(tick)))\" y2=\"\(format(y(tick)))\" stroke=\"\(tick == 0 ? "#000000" : "#e0e0e0")\"/>"
            )
            out.append(
                "<text x=\"\(format(plot.x - 6))\" y=\"\(format(y(tick) + 4))\" text-anchor=\"end\">\(escape(MoneyFormatter.format(minorUnits: tick, currency: currency)))</text>"
            )
        }
        out.append(
            "<text transform=\"translate(14 \(format(plot.y + plot.h / 2))) rotate(-90)\" text-anchor=\"middle\">MRR movement (\(escape(currency)) a month)</text>"
        )
        out.append(
            "<text transform=\"translate(\(format(width - 14)) \(format(plot.y + plot.h / 2))) rotate(90)\" text-anchor=\"middle\">active subscribers</text>"
        )
        for tick in [0, Int(subscriberTop)] {
            out.append("<text x=\"\(format(plot.x + plot.w + 6))\" y=\"\(format(ySubscribers(tick) + 4))\">\(tick)</text>")
        }
        // Bars: each series stacked away from zero on its side.
        for (index, start) in buckets.enumerated() {
            var above: Int64 = 0, below: Int64 = 0
            let x = plot.x + (Double(index) + 0.5) * slot - barWidth / 2
            for entry in series {
                let value = byStart[start].map(entry.value) ?? 0
                guard value != 0 else { continue }
                let from = value > 0 ? above : below
                let to = from + value
                if value > 0 { above = to } else { below = to }
                let top = min(y(from), y(to)), height = abs(y(to) - y(from))
                out.append(
                    "<rect x=\"\(format(x))\" y=\"\(format(top))\" width=\"\(format(barWidth))\" height=\"\(format(height))\" fill=\"\(entry.colour)\"><title>\(entry.name): \(escape(MoneyFormatter.format(minorUnits: value, currency: currency)))</title></rect>"
                )
            }
            // At most about ten dates, so they never overlap.
            if index % labelEvery == 0 {
                out.append(
                    "<text x=\"\(format(x + barWidth / 2))\" y=\"\(format(plot.y + plot.h + 18))\" text-anchor=\"middle\">\(day(start))</text>")
            }
        }
        // Subscribers: a line through each bucket's middle.
        let points = subscribers.enumerated().map { "\(format(plot.x + (Double($0.offset) + 0.5) * slot)),\(format(ySubscribers($0.element)))" }
        out.append("<polyline points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"\(lineColour)\" stroke-width=\"2\"/>")
        for (index, count) in subscribers.enumerated() {
            out.append(
                "<circle cx=\"\(format(plot.x + (Double(index) + 0.5) * slot))\" cy=\"\(format(ySubscribers(count)))\" r=\"3\" fill=\"\(lineColour)\"><title>\(count) active</title></circle>"
            )
        }
        out.append(
            "<text x=\"\(format(plot.x + plot.w / 2))\" y=\"\(format(plot.y + plot.h + 38))\" text-anchor=\"middle\">period start (UTC)</text>")
        out.append("</g>")
        return out
    }

    static func legend(top: Double) -> String {
        var x = margin.left
        var parts = ["<g>"]
        for entry in series {
            parts.append("<rect x=\"\(format(x))\" y=\"\(format(top))\" width=\"12\" height=\"12\" fill=\"\(entry.colour)\"/>")
            parts.append("<text x=\"\(format(x + 16))\" y=\"\(format(top + 10))\">\(entry.name)</text>")
            x += 30 + Double(entry.name.count) * 7
        }
        parts.append(
            "<line x1=\"\(format(x))\" x2=\"\(format(x + 18))\" y1=\"\(format(top + 6))\" y2=\"\(format(top + 6))\" stroke=\"\(lineColour)\" stroke-width=\"2\"/>"
        )
        parts.append("<text x=\"\(format(x + 22))\" y=\"\(format(top + 10))\">active subscribers</text>")
        parts.append("</g>")
        return parts.joined(separator: "\n")
    }

    /// The smallest 1, 2 or 5 × 10ⁿ at or above `value`, so gridlines fall on round amounts.
    static func niceCeiling(_ value: Int64) -> Int64 {
        guard value > 0 else { return 0 }
        var power: Int64 = 1
        while true {
            for step in [1, 2, 5] as [Int64] where step * power >= value { return step * power }
            power *= 10
        }
    }

    /// The smallest multiple of `step` at or above `value` (≥ 0).
    static func ceilingMultiple(_ value: Int64, of step: Int64) -> Int64 {
        guard value > 0 else { return 0 }
        return (value + step - 1) / step * step
    }

    static func day(_ date: Date) -> String { String(Timestamp.format(date).prefix(10)) }

    static func format(_ value: Double) -> String { String(format: "%.1f", value) }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
    }
}
