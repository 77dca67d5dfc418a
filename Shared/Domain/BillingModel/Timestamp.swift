import Foundation

/// ISO-8601 parsing and formatting for provider timestamps and our own records.
///
/// Written by hand instead of using a `DateFormatter` because the providers
/// disagree on precision (Lemon Squeezy sends six fractional digits,
/// `2024-06-19T14:08:13.000000Z`; Paystack three, `2016-09-30T21:10:19.000Z`)
/// and Foundation's ISO-8601 parsers accept only a fixed number of digits.
/// The functions are pure, so they are safe from any thread.
public enum Timestamp {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction][Z|±HH:MM|±HHMM]` (a space instead
    /// of `T` is accepted; a missing zone means UTC). Returns nil for anything else.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19, bytes.count <= 40 else { return nil }
        var index = 0
        func number(_ width: Int) -> Int? {
            guard index + width <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<width {
                let byte = bytes[index]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
                index += 1
            }
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(0x2D), let month = number(2), expect(0x2D), let day = number(2) else { return nil }
        guard index < bytes.count, bytes[index] == 0x54 || bytes[index] == 0x74 || bytes[index] == 0x20 else { return nil }
        index += 1
        guard let hour = number(2), expect(0x3A), let minute = number(2), expect(0x3A), let second = number(2) else { return nil }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var fraction = 0.0
        if index < bytes.count, bytes[index] == 0x2E {
            index += 1
            var scale = 0.1
            var digits = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
        }
        var offsetSeconds = 0
        if index < bytes.count {
            switch bytes[index] {
            case 0x5A, 0x7A:
                index += 1
            case 0x2B, 0x2D:
                let sign = bytes[index] == 0x2D ? -1 : 1
                index += 1
                guard let hours = number(2) else { return nil }
                _ = expect(0x3A)
                guard let minutes = number(2), hours < 24, minutes < 60 else { return nil }
                offsetSeconds = sign * (hours * 3600 + minutes * 60)
            default:
                return nil
            }
        }
        guard index == bytes.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        // Only instants ``format(_:)`` can write back (UTC years 0000-9999):
        // `0000-01-01T00:00:00+01:00` is in year -1, which no record could carry.
        guard (earliestSeconds...latestSeconds).contains(seconds) else { return nil }
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z, in Unix seconds.
    static let earliestSeconds = daysFromCivil(year: 0, month: 1, day: 1) * 86_400
    static let latestSeconds = daysFromCivil(year: 9999, month: 12, day: 31) * 86_400 + 86_399

    /// Formats as UTC with millisecond precision: `2024-06-19T14:08:13.000Z`.
    public static func format(_ date: Date) -> String {
        let totalMilliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var days = totalMilliseconds / 86_400_000
        var rest = totalMilliseconds % 86_400_000
        if rest < 0 { rest += 86_400_000; days -= 1 }
        let (year, month, day) = civilFromDays(Int(days))
        let hour = rest / 3_600_000, minute = rest / 60_000 % 60, second = rest / 1000 % 60, milli = rest % 1000
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return
            "\(pad(Int64(year), 4))-\(pad(Int64(month), 2))-\(pad(Int64(day), 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).\(pad(milli, 3))Z"
    }

    // Howard Hinnant's days-from-civil algorithm (proleptic Gregorian calendar).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// Encodes and decodes `Date?` properties as ``Timestamp`` strings, so our
/// JSON does not depend on how a caller configured its `JSONEncoder`.
extension KeyedEncodingContainer {
    /// Writes the date as a ``Timestamp`` string, or an explicit `null`.
    mutating func encodeTimestamp(_ date: Date?, forKey key: Key) throws {
        if let date { try encode(Timestamp.format(date), forKey: key) } else { try encodeNil(forKey: key) }
    }
}

extension KeyedDecodingContainer {
    /// Reads a ``Timestamp`` string; absent or `null` is nil, anything unparsable throws.
    func decodeTimestamp(forKey key: Key) throws -> Date? {
        guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let date = Timestamp.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not an ISO-8601 timestamp: \(text.prefix(40))")
        }
        return date
    }

    /// Like ``decodeTimestamp(forKey:)`` but the value is required.
    func decodeRequiredTimestamp(forKey key: Key) throws -> Date {
        guard let date = try decodeTimestamp(forKey: key) else {
            throw DecodingError.valueNotFound(Date.self, .init(codingPath: codingPath + [key], debugDescription: "timestamp missing"))
        }
        return date
    }
}
