import Foundation
import Webhooks
import JSONCodec

extension JSONValue {
    /// Compact JSON with sorted keys (stable bytes for tests and logs) and unescaped slashes.
    func encodedBytes() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a tree of plain values cannot fail (no non-finite doubles are built).
        return (try? Array(encoder.encode(self))) ?? Array("null".utf8)
    }

    /// Reads an API response body with ``JSONReader`` (bounded by the HTTP
    /// client's body limit, not the webhook limit: list pages may be larger
    /// than a webhook). An empty body is `null`.
    static func decodeResponse(_ bytes: [UInt8]) -> JSONValue? {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return .null }
        return try? JSONReader.parse(bytes)
    }
}
