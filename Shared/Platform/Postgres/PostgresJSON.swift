import Foundation

/// A JSON document, bound as `jsonb` and decoded from `json` or `jsonb`.
public struct PostgresJSON: Sendable, Hashable, PostgresEncodable, PostgresDecodable {
    /// The document's text.
    public var text: String

    /// Wraps JSON text as it is; the server validates it.
    public init(text: String) { self.text = text }

    /// Encodes a value with `JSONEncoder`.
    /// - Throws: whatever the encoder throws.
    public init<T: Encodable>(encoding value: T, encoder: JSONEncoder = JSONEncoder()) throws {
        self.text = String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Decodes the document with `JSONDecoder`.
    /// - Throws: whatever the decoder throws.
    public func decode<T: Decodable>(as type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(type, from: Data(text.utf8))
    }

    /// Sent as `jsonb`.
    public static var postgresDataType: PostgresDataType { .jsonb }
    /// The document's text.
    public var postgresBind: PostgresBind { PostgresBind(dataType: .jsonb, text: text) }
    /// From `json` or `jsonb`.
    public static func decode(text: String, type: PostgresDataType) throws(PostgresDecodingFailure) -> PostgresJSON {
        guard type == .json || type == .jsonb else { throw .typeMismatch(type) }
        return PostgresJSON(text: text)
    }
}
