import Foundation

// `timestamptz` travels as ISO text with microseconds and an offset. Sessions
// run with `DateStyle=ISO` and `TimeZone=UTC`, but the parser honours any
// offset, so a caller's `SET TIME ZONE` cannot shift decoded instants.

enum TimestampText {
    static let microsPerDay: Int64 = 86_400_000_000

    /// `YYYY-MM-DD HH:MM:SS.ffffff+00`, with ` BC` for years before 1.
    /// The instant in whole microseconds since 1970 (PostgreSQL's resolution), rounded.
    static func microseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    }

    static func encode(_ date: Date) -> String { encode(micros: microseconds(date)) }

    static func encode(micros: Int64) -> String {
        var days = micros / microsPerDay
        var rem = micros % microsPerDay
        if rem < 0 { rem += microsPerDay; days -= 1 }
        let (year, month, day) = civil(fromDays: days)
        let seconds = rem / 1_000_000
        var text = pad(year <= 0 ? 1 - year : year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
        text += " " + pad(seconds / 3600, 2) + ":" + pad(seconds / 60 % 60, 2) + ":" + pad(seconds % 60, 2)
        text += "." + pad(rem % 1_000_000, 6) + "+00"
        if year <= 0 { text += " BC" }
        return text
    }

    /// Parses `timestamptz`, `timestamp` (taken as UTC) or `date` (midnight UTC) text.
    static func decode(_ text: String) -> Date? {
        if text == "infinity" { return .distantFuture }
        if text == "-infinity" { return .distantPast }
        var scanner = ByteScanner(Array(text.utf8))
        guard var year = scanner.number(), scanner.take("-"), let month = scanner.number(digits: 2),
            scanner.take("-"), let day = scanner.number(digits: 2),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var micros: Int64 = 0
        if scanner.take(" ") || scanner.take("T") {
            guard let hour = scanner.number(digits: 2), scanner.take(":"), let minute = scanner.number(digits: 2),
                scanner.take(":"), let second = scanner.number(digits: 2)
            else { return nil }
            micros = ((hour * 60 + minute) * 60 + second) * 1_000_000
            if scanner.take(".") {
                var scale: Int64 = 100_000
                var digits = 0
                while let digit = scanner.digit() {
                    micros += digit * scale
                    scale /= 10
                    digits += 1
                }
                guard digits > 0 else { return nil }
            }
            if let sign = scanner.sign() {
                guard let offsetHours = scanner.number(digits: 2) else { return nil }
                var offset = offsetHours * 3600
                if scanner.take(":") {
                    guard let offsetMinutes = scanner.number(digits: 2) else { return nil }
                    offset += offsetMinutes * 60
                    if scanner.take(":") {
                        guard let offsetSeconds = scanner.number(digits: 2) else { return nil }
                        offset += offsetSeconds
                    }
                }
                micros -= sign * offset * 1_000_000
            }
        }
        if scanner.take(" ") {
            guard scanner.take("B"), scanner.take("C") else { return nil }
            year = 1 - year
        }
        guard scanner.atEnd else { return nil }
        let total = days(fromYear: year, month: month, day: day) * microsPerDay + micros
        return Date(timeIntervalSince1970: Double(total) / 1_000_000)
    }

    // Civil-calendar conversions after Howard Hinnant's public-domain algorithms.
    static func civil(fromDays daysSinceEpoch: Int64) -> (Int64, Int64, Int64) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func days(fromYear year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

/// A tiny cursor over ASCII bytes, for the timestamp parser.
struct ByteScanner {
    private let bytes: [UInt8]
    private var index = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    mutating func digit() -> Int64? {
        guard index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 else { return nil }
        defer { index += 1 }
        return Int64(bytes[index] - 0x30)
    }

    /// `+1`, `-1`, or `nil` when the next byte is not a sign.
    mutating func sign() -> Int64? {
        if take("+") { return 1 }
        if take("-") { return -1 }
        return nil
    }

    /// Exactly `digits` digits, or (when `nil`) one to nine digits.
    mutating func number(digits: Int? = nil) -> Int64? {
        var value: Int64 = 0
        var count = 0
        while count < (digits ?? 9), let digit = digit() {
            value = value * 10 + digit
            count += 1
        }
        if let digits { return count == digits ? value : nil }
        return count > 0 ? value : nil
    }
}

extension Date: PostgresEncodable, PostgresDecodable {
    /// Sent as `timestamptz`, with microsecond precision.
    public static var postgresDataType: PostgresDataType { .timestamptz }
    /// ISO text in UTC.
    public var postgresBind: PostgresBind { PostgresBind(dataType: .timestamptz, value: .microseconds(TimestampText.microseconds(self))) }
    /// From `timestamptz`, `timestamp` (read as UTC) or `date` (midnight UTC).
    public static func decode(text: String, type: PostgresDataType) throws(PostgresDecodingFailure) -> Date {
        guard type == .timestamptz || type == .timestamp || type == .date else { throw .typeMismatch(type) }
        guard let date = TimestampText.decode(text) else { throw .malformed(type) }
        return date
    }
}
