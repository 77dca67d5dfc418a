import Foundation

/// The provider payloads in `Tests/Fixtures` (provenance: its SOURCES.md),
/// kept once for every test target. Found from this file's own path, so the
/// files are read where the repository has them (no resource bundle).
public enum Fixture {
    /// `Tests/Fixtures`.
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// A fixture's bytes, exactly as stored.
    public static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// A fixture as UTF-8 text.
    public static func text(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    /// The names of the JSON fixtures starting with `prefix`, sorted.
    public static func names(withPrefix prefix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
    }
}
