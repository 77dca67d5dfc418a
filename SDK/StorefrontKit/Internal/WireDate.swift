import Foundation

/// Storefront's timestamps: ISO-8601 in UTC with milliseconds
/// (`2026-12-01T10:00:00.000Z`). Parsing also accepts them without the
/// fraction; `null` and absent keys are nil.
enum WireDate {
    static func parse(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }

    static func format(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }
}

extension KeyedDecodingContainer {
    /// A timestamp that may be absent or `null`; anything else unparsable throws.
    func decodeDate(forKey key: Key) throws -> Date? {
        guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let date = WireDate.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not an ISO-8601 timestamp: \(text.prefix(40))")
        }
        return date
    }

    /// A timestamp that must be present.
    func decodeRequiredDate(forKey key: Key) throws -> Date {
        guard let date = try decodeDate(forKey: key) else {
            throw DecodingError.valueNotFound(Date.self, .init(codingPath: codingPath + [key], debugDescription: "timestamp missing"))
        }
        return date
    }

    /// A URL string that may be absent, `null` or empty.
    func decodeURL(forKey key: Key) throws -> URL? {
        guard let text = try decodeIfPresent(String.self, forKey: key), !text.isEmpty else { return nil }
        return URL(string: text)
    }
}

extension KeyedEncodingContainer {
    /// Writes a timestamp string or an explicit `null`, as the server does.
    mutating func encodeDate(_ date: Date?, forKey key: Key) throws {
        if let date { try encode(WireDate.format(date), forKey: key) } else { try encodeNil(forKey: key) }
    }

    /// Writes a URL's string or an explicit `null`.
    mutating func encodeURL(_ url: URL?, forKey key: Key) throws {
        if let url { try encode(url.absoluteString, forKey: key) } else { try encodeNil(forKey: key) }
    }
}
