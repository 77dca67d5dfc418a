import Foundation

/// Signing and checking of outgoing webhooks as the Standard Webhooks
/// specification describes (standardwebhooks.com): the headers
/// `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`,
/// whose value is one or more space-separated `v1,<base64 HMAC-SHA256>` of
/// the bytes `<id>.<timestamp>.<body>`, keyed with the endpoint's secret
/// (`whsec_` followed by the key in standard base64).
public enum StandardWebhookSignature {
    /// The version tag of an HMAC-SHA256 signature.
    public static let version = "v1"
    /// The prefix of a serialized secret.
    public static let secretPrefix = "whsec_"
    /// Key length of generated secrets: 32 bytes (the specification asks for 24 to 64).
    public static let generatedKeyBytes = 32

    /// Why a secret is refused.
    public enum SecretError: Error, Sendable, Equatable, CustomStringConvertible {
        case missingPrefix, notBase64, badLength(Int)

        public var description: String {
            switch self {
            case .missingPrefix: "a webhook secret starts with whsec_"
            case .notBase64: "a webhook secret is whsec_ followed by standard base64"
            case .badLength(let count): "a webhook secret's key is 24 to 64 bytes, not \(count)"
            }
        }
    }

    /// The key bytes of a `whsec_…` secret.
    /// - Throws: ``SecretError`` for anything else.
    public static func key(of secret: String) throws(SecretError) -> [UInt8] {
        guard secret.hasPrefix(secretPrefix) else { throw .missingPrefix }
        guard let key = Data(base64Encoded: String(secret.dropFirst(secretPrefix.count))) else { throw .notBase64 }
        guard (24...64).contains(key.count) else { throw .badLength(key.count) }
        return Array(key)
    }

    /// A new random secret, `whsec_` and 32 random bytes in base64.
    /// - Throws: ``CryptoError/randomFailed``.
    public static func generateSecret() throws(CryptoError) -> String {
        secretPrefix + Data(try SecureRandom.bytes(count: generatedKeyBytes)).base64EncodedString()
    }

    /// One `v1,<base64>` signature of `body` sent as message `id` at `timestamp`.
    public static func sign(id: String, timestamp: Int64, body: [UInt8], key: [UInt8]) -> String {
        var content = Array("\(id).\(timestamp).".utf8)
        content.append(contentsOf: body)
        return "\(version)," + Data(HMAC.sha256(key: key, message: content)).base64EncodedString()
    }

    /// The `webhook-signature` header value: one signature per key (during a
    /// secret rotation both the new and the previous secret sign, so a
    /// receiver holding either accepts the request).
    public static func header(id: String, timestamp: Int64, body: [UInt8], keys: [[UInt8]]) -> String {
        keys.map { sign(id: id, timestamp: timestamp, body: body, key: $0) }.joined(separator: " ")
    }

    /// Whether one of the signatures in `header` is `body`'s under `key`
    /// (compared in constant time), and `timestamp` is within `tolerance`
    /// seconds of `now` (the specification's replay protection).
    public static func verify(
        header: String, id: String, timestamp: String, body: [UInt8], key: [UInt8], now: Date = Date(), tolerance: TimeInterval = 300
    ) -> Bool {
        guard let seconds = Int64(timestamp), abs(now.timeIntervalSince1970 - Double(seconds)) <= tolerance else { return false }
        let expected = Array(sign(id: id, timestamp: seconds, body: body, key: key).utf8)
        var matched = false
        for candidate in header.split(separator: " ") where constantTimeEquals(Array(candidate.utf8), expected) { matched = true }
        return matched
    }
}
