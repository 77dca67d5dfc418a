import CryptoPrimitives
import Foundation

// The fixtures themselves: `Tests/Fixtures`, read through TestSupport's `Fixture`.

/// Lowercase hex SHA-256, as the dedup keys of deliveries without a usable id use it
/// (WebhookDigestTests checks the digest itself against the `openssl` tool).
func sha256Hex(_ bytes: [UInt8]) -> String {
    Hex.encode(SHA256.hash(bytes))
}

func date(_ text: String) -> Date? {
    ISO8601DateFormatter().date(from: text)
}
