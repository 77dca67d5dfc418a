import Foundation

/// Formatting rules of the Prometheus text exposition format.
enum PrometheusText {
    static func labelText(_ pairs: [(String, String)]) -> String {
        guard !pairs.isEmpty else { return "" }
        return "{" + pairs.map { "\($0.0)=\"\(escapeLabelValue($0.1))\"" }.joined(separator: ",") + "}"
    }

    static func escapeLabelValue(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    static func escapeHelp(_ help: String) -> String {
        help.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }

    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    static func histogramLines(name: String, labels: [(String, String)], histogram: Histogram) -> String {
        let (counts, sum, count) = histogram.snapshot
        var out = ""
        var cumulative = 0
        for (bound, bucketCount) in zip(histogram.buckets, counts) {
            cumulative += bucketCount
            out += "\(name)_bucket\(labelText(labels + [("le", number(bound))])) \(cumulative)\n"
        }
        out += "\(name)_bucket\(labelText(labels + [("le", "+Inf")])) \(count)\n"
        out += "\(name)_sum\(labelText(labels)) \(number(sum))\n"
        out += "\(name)_count\(labelText(labels)) \(count)\n"
        return out
    }
}
