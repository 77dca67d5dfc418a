import CryptoPrimitives

// Apart from WebhookFormat.swift: CryptoPrimitives has a JSONValue of its own
// (for JWT claims), which would make the parsers' JSONValue ambiguous there.
extension WebhookFormat {
    /// Lowercase hex SHA-256 of a body: the dedup key of a delivery without a usable id.
    static func bodyDigest(_ body: [UInt8]) -> String {
        Hex.encode(SHA256.hash(body))
    }
}
