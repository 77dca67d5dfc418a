import CryptoPrimitives

/// Why a token was not accepted.
public enum TokenVerificationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The token is not acceptable (HTTP 401): malformed, forged, expired,
    /// a `kid` no key set has, an algorithm no configured key verifies…
    case rejected(JWTError)
    /// The token may be fine, but a key set it could be verified with has
    /// never been loaded (its host was unreachable since start-up): try again
    /// shortly (HTTP 503), rather than telling an app its user is signed out.
    case keysUnavailable

    public var description: String {
        switch self {
        case .rejected(let error): error.description
        case .keysUnavailable: "JWKS keys not loaded yet"
        }
    }
}
