/// An amount in a currency's minor unit (cents, kobo, pesewas) — the unit both
/// providers use on the wire — with display formatting.
public struct Money: Codable, Sendable, Hashable {
    /// Amount in minor units (e.g. 999 for $9.99).
    public var minorUnits: Int64
    /// ISO-4217 code, uppercase (`USD`, `NGN`).
    public var currency: String

    public init(minorUnits: Int64, currency: String) {
        self.minorUnits = minorUnits
        self.currency = currency.uppercased()
    }

    /// The display form, e.g. `$9.99`, `₦5,000.00`; see ``MoneyFormatter``.
    public var formatted: String { MoneyFormatter.format(minorUnits: minorUnits, currency: currency) }
}

/// Formats minor-unit amounts for people: symbol, thousands separators, and
/// the currency's number of decimals. Locale-independent on purpose, so the
/// catalog shows the same string on every server (Lemon Squeezy's own
/// `price_formatted` looks the same: `$9.99`, `€14.99`).
public enum MoneyFormatter {
    /// Symbols for the currencies we expect; others are shown as `CODE 1,234.00`.
    static let symbols: [String: String] = [
        "USD": "$", "EUR": "€", "GBP": "£", "NGN": "₦", "GHS": "GH₵", "ZAR": "R",
        "KES": "KSh ", "JPY": "¥", "INR": "₹", "CAD": "CA$", "AUD": "A$", "XOF": "CFA ",
    ]

    /// Currencies whose minor unit is not 1/100 (ISO 4217 exponent).
    static let exponents: [String: Int] = [
        "JPY": 0, "KRW": 0, "VND": 0, "CLP": 0, "ISK": 0, "UGX": 0, "RWF": 0, "XOF": 0, "XAF": 0, "PYG": 0,
        "BHD": 3, "KWD": 3, "OMR": 3, "JOD": 3, "TND": 3, "LYD": 3, "IQD": 3,
    ]

    /// Number of decimals of `currency`'s minor unit (2 unless listed otherwise).
    public static func exponent(of currency: String) -> Int { exponents[currency.uppercased()] ?? 2 }

    /// `format(minorUnits: 999, currency: "USD")` is `$9.99`; negative amounts
    /// get a leading minus (`-$1.00`).
    public static func format(minorUnits: Int64, currency: String) -> String {
        let code = currency.uppercased()
        let exponent = exponent(of: code)
        let magnitude = minorUnits.magnitude
        var divisor: UInt64 = 1
        for _ in 0..<exponent { divisor *= 10 }
        let whole = magnitude / divisor
        let fraction = magnitude % divisor
        var text = grouped(whole)
        if exponent > 0 {
            let digits = String(fraction)
            text += "." + String(repeating: "0", count: exponent - digits.count) + digits
        }
        let prefix = symbols[code] ?? "\(code) "
        return (minorUnits < 0 ? "-" : "") + prefix + text
    }

    static func grouped(_ value: UInt64) -> String {
        let digits = Array(String(value))
        var out = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }
}
