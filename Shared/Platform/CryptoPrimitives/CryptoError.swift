/// Failures of the non-JWT crypto helpers.
public enum CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The random generator failed (not seeded, or an OpenSSL error).
    case randomFailed
    /// A key is unusable (bad PEM, wrong type or curve); the reason never holds key material.
    case invalidKey(String)
    /// Signing failed inside OpenSSL.
    case signingFailed(String)

    public var description: String {
        switch self {
        case .randomFailed: "secure random generator failed"
        case .invalidKey(let reason): "invalid key: \(reason)"
        case .signingFailed(let reason): "signing failed: \(reason)"
        }
    }

    /// The same failure of a key made through the JWT code's key loaders.
    init(_ error: JWTError) {
        switch error {
        case .invalidKey(let reason): self = .invalidKey(reason)
        default: self = .signingFailed(error.description)
        }
    }
}
