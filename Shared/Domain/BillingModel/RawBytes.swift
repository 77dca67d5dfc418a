import Foundation

/// Bytes carried inside a JSON record untouched, as a base64 string.
///
/// Why base64: the webhook payload must reach the projector byte for byte
/// (signatures were computed over those bytes, and re-serialising JSON would
/// change escapes such as `\/` and `\u20ac`). `JSONEncoder` cannot embed a
/// raw JSON fragment, and a JSON string would still be re-escaped; base64
/// survives any encoder and any decoder.
public struct RawBytes: Codable, Sendable, Hashable {
    public var bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The bytes as UTF-8 text (lossy for invalid UTF-8), for logs and the CLI.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let data = Data(base64Encoded: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not base64"))
        }
        bytes = [UInt8](data)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Data(bytes).base64EncodedString())
    }
}
