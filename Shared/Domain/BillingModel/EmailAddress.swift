/// A syntactically plausible email address, normalised (trimmed, domain lower-cased).
///
/// The check is pragmatic, not RFC 5322: one `@`, a dot-atom local part of
/// at most 64 characters, a domain of LDH labels with at least one dot and an
/// alphabetic top-level label, 254 characters in all. Quoted local parts,
/// IP-literal domains and non-ASCII addresses are refused — the providers'
/// checkouts do not accept them either. Whether the mailbox exists is the
/// provider's business.
public struct EmailAddress: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The normalised address.
    public let value: String

    /// Characters allowed in a dot-atom local part besides letters and digits.
    static let localSpecials = Set("!#$%&'*+/=?^_`{|}~-.".utf8)

    /// Nil unless `text` passes ``isValid(_:)``.
    public init?(_ text: String) {
        let trimmed = text.trimmingWhitespace()
        guard Self.isValid(trimmed), let at = trimmed.lastIndex(of: "@") else { return nil }
        value = String(trimmed[..<at]) + "@" + trimmed[trimmed.index(after: at)...].lowercased()
    }

    public var description: String { value }

    /// True if `text` (taken as is, no trimming) looks like an address.
    public static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 3, bytes.count <= 254 else { return false }
        guard let at = bytes.firstIndex(of: UInt8(ascii: "@")), bytes.lastIndex(of: UInt8(ascii: "@")) == at else { return false }
        let local = bytes[..<at], domain = bytes[(at + 1)...]
        guard !local.isEmpty, local.count <= 64, local.first != UInt8(ascii: "."), local.last != UInt8(ascii: ".") else { return false }
        var previous: UInt8 = 0
        for byte in local {
            guard isAlphanumeric(byte) || localSpecials.contains(byte) else { return false }
            if byte == UInt8(ascii: "."), previous == UInt8(ascii: ".") { return false }
            previous = byte
        }
        let labels = domain.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        for label in labels {
            guard !label.isEmpty, label.count <= 63, label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-") else { return false }
            guard label.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "-") }) else { return false }
        }
        guard let top = labels.last, top.count >= 2, top.allSatisfy(isLetter) else { return false }
        return true
    }

    static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
    static func isAlphanumeric(_ byte: UInt8) -> Bool { isLetter(byte) || (byte >= 0x30 && byte <= 0x39) }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let address = EmailAddress(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an email address"))
        }
        self = address
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and newlines
    /// (Foundation-free so `Models` stays light).
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0.isWhitespace }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[start...end])
    }
}
