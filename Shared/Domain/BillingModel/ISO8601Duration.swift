import Foundation

/// An ISO 8601 duration as grants take them (`P30D`, `P1M`, `P1Y2M`, `PT12H`,
/// `P2W`): whole numbers of years, months, weeks, days, hours, minutes and
/// seconds, added to an instant on the UTC Gregorian calendar, so `P1M` from
/// 31 January ends on the last day of February, as a person means it.
///
/// Strict on purpose: no fractions, no signs, no empty `P`/`T`, at most 9
/// digits per part (larger is never a meaningful grant and is refused early).
public struct ISO8601Duration: Sendable, Hashable, CustomStringConvertible {
    public var years = 0, months = 0, weeks = 0, days = 0
    public var hours = 0, minutes = 0, seconds = 0

    public init(years: Int = 0, months: Int = 0, weeks: Int = 0, days: Int = 0, hours: Int = 0, minutes: Int = 0, seconds: Int = 0) {
        (self.years, self.months, self.weeks, self.days) = (years, months, weeks, days)
        (self.hours, self.minutes, self.seconds) = (hours, minutes, seconds)
    }

    /// Parses `P[nY][nM][nW][nD][T[nH][nM][nS]]`; nil for anything else.
    public init?(_ text: String) {
        var bytes = text.utf8.makeIterator()
        guard bytes.next() == UInt8(ascii: "P") else { return nil }
        var inTime = false, number: Int?, digits = 0, parts = 0, timeParts = 0
        // Designators must come in this order; each at most once.
        var nextDate = 0, nextTime = 0
        let dateOrder = Array("YMWD".utf8), timeOrder = Array("HMS".utf8)
        while let byte = bytes.next() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits += 1
                guard digits <= 9 else { return nil }
                number = (number ?? 0) * 10 + Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "T"):
                guard !inTime, number == nil else { return nil }
                inTime = true
            default:
                guard let value = number else { return nil }
                let order = inTime ? timeOrder : dateOrder
                guard let position = order.firstIndex(of: byte), position >= (inTime ? nextTime : nextDate) else { return nil }
                switch (inTime, byte) {
                case (false, UInt8(ascii: "Y")): years = value
                case (false, UInt8(ascii: "M")): months = value
                case (false, UInt8(ascii: "W")): weeks = value
                case (false, _): days = value
                case (true, UInt8(ascii: "H")): hours = value
                case (true, UInt8(ascii: "M")): minutes = value
                default: seconds = value
                }
                if inTime { nextTime = position + 1; timeParts += 1 } else { nextDate = position + 1 }
                parts += 1
                number = nil
                digits = 0
            }
        }
        guard number == nil, parts > 0, !inTime || timeParts > 0 else { return nil }
    }

    /// `start` plus this duration on the UTC Gregorian calendar; nil when it
    /// does not fit in a date.
    public func added(to start: Date) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(
            year: years, month: months, day: days + weeks * 7, hour: hours, minute: minutes, second: seconds)
        return calendar.date(byAdding: components, to: start)
    }

    /// The canonical text (`P1Y2M`, `PT12H`).
    public var description: String {
        var text = "P"
        for (value, designator) in [(years, "Y"), (months, "M"), (weeks, "W"), (days, "D")] where value > 0 { text += "\(value)\(designator)" }
        let time = [(hours, "H"), (minutes, "M"), (seconds, "S")].filter { $0.0 > 0 }
        if !time.isEmpty { text += "T" + time.map { "\($0.0)\($0.1)" }.joined() }
        return text == "P" ? "PT0S" : text
    }
}
