/// An App Store storefront as StoreKit names it: the ISO 3166-1 alpha-3 code
/// of the buyer's App Store country (`Storefront.countryCode`: `USA`, `NLD`,
/// `JPN`). The link-out policy file and create-checkout use the same codes.
public struct AppStoreStorefront: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Three uppercase ASCII letters.
    public let code: String

    /// nil unless `code` is three ASCII letters; lowercase is accepted and uppercased.
    public init?(_ code: String) {
        let bytes = Array(code.utf8)
        guard bytes.count == 3, bytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else { return nil }
        self.code = String(decoding: bytes.map { (0x61...0x7A).contains($0) ? $0 - 0x20 : $0 }, as: UTF8.self)
    }

    public var description: String { code }

    public static func < (lhs: AppStoreStorefront, rhs: AppStoreStorefront) -> Bool { lhs.code < rhs.code }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let storefront = AppStoreStorefront(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO 3166-1 alpha-3 code: \(text)"))
        }
        self = storefront
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(code)
    }
}
