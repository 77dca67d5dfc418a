import Foundation

/// The report's time range and how it is cut: `[from, to)` in UTC, split
/// into days, ISO weeks (Monday to Monday) or calendar months; the first and
/// last bucket are cut at `from` and `to`.
public struct ReportPeriod: Sendable, Hashable {
    public enum Granularity: String, Sendable, CaseIterable, Codable {
        case day, week, month
    }

    public var from: Date
    public var to: Date
    public var granularity: Granularity

    public init(from: Date, to: Date, granularity: Granularity) {
        self.from = from
        self.to = to
        self.granularity = granularity
    }

    /// The calendar month holding `date` (UTC), by `granularity`.
    public static func month(containing date: Date, granularity: Granularity = .month) -> ReportPeriod {
        let start = floor(date, to: .month)
        return ReportPeriod(from: start, to: advance(start, by: .month), granularity: granularity)
    }

    /// The buckets, in order; empty when `to` is not after `from`.
    public var buckets: [DateInterval] {
        var result: [DateInterval] = []
        var start = from
        while start < to {
            let end = min(Self.advance(Self.floor(start, to: granularity), by: granularity), to)
            result.append(DateInterval(start: start, end: end))
            start = end
        }
        return result
    }

    /// The buckets that began before `asOf`, the last one cut there: what a
    /// report stopping at `asOf` counts in (nothing after it is known yet).
    public func buckets(upTo asOf: Date) -> [DateInterval] {
        buckets.compactMap { bucket in bucket.start < asOf ? DateInterval(start: bucket.start, end: min(bucket.end, asOf)) : nil }
    }

    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .gmt
        return calendar
    }()

    /// The start of the day, ISO week or month holding `date`.
    public static func floor(_ date: Date, to granularity: Granularity) -> Date {
        let components: Set<Calendar.Component> =
            switch granularity {
            case .day: [.year, .month, .day]
            case .week: [.yearForWeekOfYear, .weekOfYear]
            case .month: [.year, .month]
            }
        return calendar.date(from: calendar.dateComponents(components, from: date)) ?? date
    }

    static func advance(_ date: Date, by granularity: Granularity) -> Date {
        let component: Calendar.Component =
            switch granularity {
            case .day: .day
            case .week: .weekOfYear
            case .month: .month
            }
        return calendar.date(byAdding: component, value: 1, to: date) ?? date
    }
}
