/// Failures of the non-JWT crypto helpers.
public enum CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The random generator failed (not seeded, or an OpenSSL error).
    case randomFailed

    public var description: String {
        switch self {
        case .randomFailed: "secure random generator failed"
        }
    }
}
