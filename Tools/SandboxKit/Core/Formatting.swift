import Foundation

/// Timestamp and money formats as each provider writes them.
enum Formatting {
    private static let calendar: Calendar = {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "UTC")!
        return c
    }()

    private static func parts(_ date: Date) -> (String, Int) {
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let fraction = date.timeIntervalSince1970 - date.timeIntervalSince1970.rounded(.down)
        let base = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
        return (base, Int((fraction * 1_000_000).rounded(.down)))
    }

    /// Lemon Squeezy: `2024-06-19T14:08:13.000000Z`.
    static func lemonSqueezy(_ date: Date) -> String {
        let (base, micros) = parts(date)
        return base + String(format: ".%06dZ", micros)
    }

    /// Paystack: `2016-03-29T22:42:50.000Z`.
    static func paystack(_ date: Date) -> String {
        let (base, micros) = parts(date)
        return base + String(format: ".%03dZ", micros / 1000)
    }

    /// Parses the ISO-8601 forms clients send (`…Z`, with or without fractions).
    static func parseISO(_ text: String) -> Date? {
        let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        let plain = Date.ISO8601FormatStyle()
        return (try? withFraction.parse(text)) ?? (try? plain.parse(text))
    }

    static func adding(_ component: Calendar.Component, _ value: Int, to date: Date) -> Date {
        calendar.date(byAdding: component, value: value, to: date) ?? date
    }

    static func components(_ date: Date) -> DateComponents {
        calendar.dateComponents([.year, .month, .day, .hour, .minute, .weekday], from: date)
    }

    /// `$4.99`, `$1,049.00`.
    static func usd(_ cents: Int) -> String { "$" + grouped(cents) }

    /// `₦2,500.00`.
    static func naira(_ kobo: Int) -> String { "₦" + grouped(kobo) }

    private static func grouped(_ minor: Int) -> String {
        let whole = String(abs(minor) / 100)
        var digits = ""
        for (index, ch) in whole.reversed().enumerated() {
            if index > 0, index % 3 == 0 { digits.insert(",", at: digits.startIndex) }
            digits.insert(ch, at: digits.startIndex)
        }
        return (minor < 0 ? "-" : "") + digits + String(format: ".%02d", abs(minor) % 100)
    }

    /// A stable UUID-shaped id built from a counter and a namespace digit.
    static func uuid(_ namespace: Int, _ counter: Int) -> String {
        String(format: "%08x-0000-4000-8%03x-%012x", 0x5a4db0 + namespace, namespace, counter)
    }

    /// A stable Paystack-style code: prefix + 15 lowercase alphanumerics.
    static func code(_ prefix: String, _ counter: Int) -> String {
        let body = String(counter, radix: 36)
        return prefix + "sbx" + String(repeating: "0", count: max(0, 12 - body.count)) + body
    }

    /// A fresh random code: prefix + `length` lowercase alphanumerics, like
    /// Paystack's `AUTH_…` codes. Random rather than counted so codes from a
    /// restarted sandbox never collide with ones a receiver already stored.
    static func randomCode(_ prefix: String, length: Int) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return prefix + String((0..<length).map { _ in alphabet.randomElement()! })
    }

    /// A token of `length` mixed-case alphanumerics that depends only on `text`
    /// (FNV-1a seeding SplitMix64; an identifier, not a secret).
    static func stableToken(_ text: String, length: Int) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        var generator = SeededGenerator(seed: hash)
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        return String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }

    /// HTML-escapes text for the checkout pages.
    static func html(_ text: String) -> String {
        var out = ""
        for ch in text {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(ch)
            }
        }
        return out
    }
}
