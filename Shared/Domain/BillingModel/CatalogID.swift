/// An opaque product or variant id handed to apps, unique across providers.
///
/// Scheme: `<prefix>_<raw provider id>` where the prefix is ``Provider/catalogPrefix``
/// (`ls` for Lemon Squeezy, `ps` for Paystack): `ls_123` is Lemon Squeezy
/// variant or product `123`, `ps_PLN_gx2wn530m0i3w3m` is Paystack plan
/// `PLN_gx2wn530m0i3w3m`. Parsing splits at the FIRST underscore only, so raw
/// ids may themselves contain underscores. Raw ids are 1–128 characters of
/// `[A-Za-z0-9_.:-]`, which keeps the string safe in URLs, logs and topic keys.
public struct CatalogID: Hashable, Sendable, Codable, LosslessStringConvertible {
    /// Which provider the id belongs to.
    public let provider: Provider
    /// The id exactly as the provider spells it.
    public let rawID: String

    /// Longest raw id accepted (bounds input from apps).
    public static let maximumRawLength = 128

    /// Nil if `rawID` is empty, too long, or has characters outside the allowed set.
    public init?(provider: Provider, rawID: String) {
        guard Self.isValidRaw(rawID) else { return nil }
        self.provider = provider
        self.rawID = rawID
    }

    /// Parses `ls_123` / `ps_PLN_x`; nil for anything else (unknown prefix, empty raw id…).
    public init?(_ description: String) {
        guard description.utf8.count <= Self.maximumRawLength + 3, let underscore = description.firstIndex(of: "_") else { return nil }
        let prefix = description[..<underscore]
        guard let provider = Provider.allCases.first(where: { $0.catalogPrefix == prefix }) else { return nil }
        self.init(provider: provider, rawID: String(description[description.index(after: underscore)...]))
    }

    /// The opaque form, e.g. `ls_123`.
    public var description: String { "\(provider.catalogPrefix)_\(rawID)" }

    static func isValidRaw(_ raw: String) -> Bool {
        guard !raw.isEmpty, raw.utf8.count <= maximumRawLength else { return false }
        return raw.utf8.allSatisfy { byte in
            EmailAddress.isAlphanumeric(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
                || byte == UInt8(ascii: "-")
        }
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = CatalogID(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a catalog id: \(text.prefix(40))"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
