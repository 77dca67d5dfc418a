/// A credential (API key, webhook secret) that never shows up in logs:
/// `description`, `debugDescription` and string interpolation print
/// `<redacted>`; only ``value`` exposes it, for the one place that must send it.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The credential itself.
    public let value: String

    public init(_ value: String) {
        self.value = value
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }

    /// The credential's bytes, e.g. as an HMAC key.
    public var bytes: [UInt8] { Array(value.utf8) }
}
