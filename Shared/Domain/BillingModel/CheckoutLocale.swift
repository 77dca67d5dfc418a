/// The buyer's language for a hosted checkout: a BCP 47 tag (`de`, `pt-BR`,
/// `es-419`), from the request's `locale` or else its `Accept-Language`.
///
/// Only the shape is checked here; each provider decides which tags it
/// takes (Stripe maps to its list or `auto`; providers without a locale
/// parameter ignore it).
public struct CheckoutLocale: Sendable, Hashable, CustomStringConvertible {
    /// The tag with its language lowercased and a two-letter region uppercased (`pt-BR`).
    public let tag: String

    /// Longest tag accepted (RFC 5646 suggests buffers of 35 characters).
    public static let maximumLength = 35

    /// Nil when `text` is not a language tag: a 2–3 letter language, then
    /// subtags of 1–8 letters or digits, at most ``maximumLength`` characters
    /// (no surrounding spaces: the request's contract is exact).
    public init?(_ text: String) {
        guard !text.isEmpty, text.utf8.count <= Self.maximumLength else { return nil }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard let language = parts.first, (2...3).contains(language.utf8.count), language.utf8.allSatisfy(Self.isLetter) else { return nil }
        for part in parts.dropFirst() {
            guard (1...8).contains(part.utf8.count), part.utf8.allSatisfy({ Self.isLetter($0) || (0x30...0x39).contains($0) }) else {
                return nil
            }
        }
        tag = ([language.lowercased()] + parts.dropFirst().map { $0.utf8.count == 2 ? $0.uppercased() : $0 }).joined(separator: "-")
    }

    /// The first acceptable tag of an `Accept-Language` header, by quality
    /// (ties keep the header's order); `*`, malformed tags and `q=0` are skipped.
    public init?(acceptLanguage header: String) {
        var best: (tag: CheckoutLocale, quality: Double)?
        for entry in header.split(separator: ",").prefix(32) {
            let pieces = entry.split(separator: ";").map { String($0).trimmingWhitespace() }
            guard let first = pieces.first, let locale = CheckoutLocale(first) else { continue }
            var quality = 1.0
            for piece in pieces.dropFirst() where piece.lowercased().hasPrefix("q=") {
                quality = Double(piece.dropFirst(2)) ?? 0
            }
            guard quality > 0, quality <= 1 else { continue }
            if best == nil || quality > best!.quality { best = (locale, quality) }
        }
        guard let best else { return nil }
        self = best.tag
    }

    /// The language subtag alone (`pt` of `pt-BR`).
    public var language: String { String(tag.prefix { $0 != "-" }) }

    public var description: String { tag }

    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
}
