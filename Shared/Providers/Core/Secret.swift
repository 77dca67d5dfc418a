/// A credential (API key, webhook secret) that never shows up in logs:
/// `description`, `debugDescription` and string interpolation print
/// `<redacted>`, and so does `dump`/`Mirror` (which would otherwise list the
/// stored property of any value holding one); only ``value`` exposes it, for
/// the one place that must send it.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The credential itself.
    public let value: String

    public init(_ value: String) {
        self.value = value
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// The credential's bytes, e.g. as an HMAC key.
    public var bytes: [UInt8] { Array(value.utf8) }
}
