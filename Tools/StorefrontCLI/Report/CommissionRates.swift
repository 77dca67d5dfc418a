import Foundation

/// Commission rates per App Store storefront, for what `storefront report
/// --storefronts` says would be owed on linked purchases (docs/app-store.md,
/// "What it costs"). No rate is set by default: Apple charges no commission
/// on US link-outs today, and the rates where it does (or may again) are
/// the seller's terms to state, not Storefront's to guess.
///
/// Written `USA=0.27,NLD=0.1,*=0.05`: a storefront's ISO 3166-1 alpha-3 code
/// (or `*` for every other one) and a fraction between 0 and 1 with at most
/// four decimals, kept as basis points so the sums are exact.
public struct CommissionRates: Sendable, Equatable {
    /// Basis points (1/10,000) by storefront code.
    public private(set) var basisPoints: [String: Int] = [:]
    /// Basis points for a storefront not named.
    public private(set) var otherwise = 0

    /// Why a rate list cannot be read.
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    public init() {}

    /// - Throws: ``ParseError`` for a malformed entry, an unknown code shape, a rate outside 0…1 or with more than four decimals.
    public init(parsing text: String) throws(ParseError) {
        for entry in text.split(separator: ",", omittingEmptySubsequences: true) {
            let parts = entry.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { throw ParseError(description: "a commission is CODE=RATE, e.g. USA=0.27: \(entry.prefix(40))") }
            let code = parts[0].uppercased()
            guard code == "*" || (code.count == 3 && code.allSatisfy { $0.isASCII && $0.isLetter }) else {
                throw ParseError(description: "a storefront is three letters (ISO 3166-1 alpha-3) or *: \(parts[0].prefix(40))")
            }
            let points = try Self.basisPoints(parts[1])
            if code == "*" { otherwise = points } else { basisPoints[code] = points }
        }
    }

    /// The rate of `storefront`, in basis points.
    public func rate(for storefront: String) -> Int { basisPoints[storefront.uppercased()] ?? otherwise }

    /// `amount` (minor units) at `basisPoints`, rounded half away from zero.
    public static func commission(on amount: Int64, basisPoints: Int) -> Int64 {
        let product = amount.multipliedReportingOverflow(by: Int64(basisPoints))
        guard !product.overflow else { return amount > 0 ? Int64.max : Int64.min }
        let (quotient, remainder) = product.partialValue.quotientAndRemainder(dividingBy: 10_000)
        return quotient + (abs(remainder) >= 5_000 ? (remainder > 0 ? 1 : -1) : 0)
    }

    /// A rate as text, e.g. `0.27` for 2,700 basis points.
    public static func format(basisPoints: Int) -> String {
        let whole = basisPoints / 10_000
        var fraction = String(basisPoints % 10_000)
        fraction = String(repeating: "0", count: 4 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return fraction.isEmpty ? String(whole) : "\(whole).\(fraction)"
    }

    static func basisPoints(_ text: String) throws(ParseError) -> Int {
        let pieces = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = pieces[0]
        let fraction = pieces.count == 2 ? pieces[1] : ""
        guard !whole.isEmpty || !fraction.isEmpty, whole.allSatisfy(\.isASCIIDigit), fraction.allSatisfy(\.isASCIIDigit),
            whole.count <= 1, fraction.count <= 4
        else { throw ParseError(description: "a rate is a fraction from 0 to 1 with at most four decimals, e.g. 0.27: \(text.prefix(40))") }
        let points = (Int(whole) ?? 0) * 10_000 + (Int(fraction.padding(toLength: 4, withPad: "0", startingAt: 0)) ?? 0)
        guard points <= 10_000 else { throw ParseError(description: "a rate is at most 1: \(text.prefix(40))") }
        return points
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
