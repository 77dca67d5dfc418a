import Foundation

// The fixtures themselves: `Tests/Fixtures`, read through TestSupport's `Fixture`.

/// A fixed stand-in for the Crypto module's SHA-256 (these tests only check
/// how the digest is used, not the digest itself): length plus a checksum.
func fakeSHA256Hex(_ bytes: [UInt8]) -> String {
    var sum: UInt64 = 1469598103934665603
    for byte in bytes { sum = (sum ^ UInt64(byte)) &* 1099511628211 }
    return "fake\(bytes.count)-\(String(sum, radix: 16))"
}

func date(_ text: String) -> Date? {
    ISO8601DateFormatter().date(from: text)
}
