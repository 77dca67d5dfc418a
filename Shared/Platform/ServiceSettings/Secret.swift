/// A configuration value that must never reach logs, errors or dumps
/// (API keys, webhook and signing secrets, passwords): the one secret type
/// of every module.
///
/// `description`, `debugDescription`, string interpolation, `dump` and
/// mirrors all show `<redacted>`. The value is only available through
/// ``reveal()``, which makes each use easy to find in review. It is
/// deliberately not `Codable` or `Equatable`: encoding would leak it, and
/// comparing secrets needs a constant-time function.
public struct Secret: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let value: String

    /// Wraps `value`.
    public init(_ value: String) {
        self.value = value
    }

    /// The secret value. Call it only where the value is handed to the
    /// library or computation that needs it.
    public func reveal() -> String { value }

    /// Whether the secret is the empty string (without revealing it).
    public var isEmpty: Bool { value.isEmpty }

    /// The secret's UTF-8 bytes, e.g. as an HMAC key.
    public var bytes: [UInt8] { Array(value.utf8) }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "Secret(<redacted>)" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
