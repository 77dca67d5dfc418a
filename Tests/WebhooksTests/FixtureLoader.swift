import Foundation

/// Reads the provider fixtures, which live with the provider tests in
/// `Tests/ProvidersTests/Fixtures/` (API answers and webhooks side by side);
/// never from outside the repository.
enum Fixture {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("ProvidersTests/Fixtures")

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static func names(withPrefix prefix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
    }
}

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
