/// Why a JWT was rejected or could not be made. Descriptions never contain the
/// token, claims values or key material.
public enum JWTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not three base64url parts, not JSON objects, wrong claim types, or too long.
    case malformed(String)
    /// `alg` is `none` or an algorithm this library does not implement.
    case unsupportedAlgorithm(String)
    /// `alg` differs from the algorithm of the configured key (blocks HS/RS confusion).
    case algorithmMismatch(expected: String, actual: String)
    /// The header lists `crit` extensions, which this library cannot honour.
    case unsupportedCriticalHeader
    /// The header's `typ` says the token is not an identity or access token
    /// (a logout token, a security event, a DPoP proof…): see ``UnverifiedJWT/acceptedTypes``.
    case unacceptedType(String)
    /// The signature does not verify under the configured key.
    case invalidSignature
    /// `exp` has passed (beyond the leeway).
    case expired
    /// `nbf` is still in the future (beyond the leeway).
    case notYetValid
    /// `iat` is in the future (beyond the leeway): a token cannot have been issued later than now.
    case issuedInFuture
    /// `iat` is older than the configured maximum token age (beyond the leeway).
    case tooOld
    /// `iss` is missing or not the expected issuer.
    case invalidIssuer
    /// `aud` is missing or does not contain the expected audience.
    case invalidAudience
    /// A required claim (such as `exp`) is absent.
    case missingClaim(String)
    /// The key is unusable (bad PEM or JWK, wrong type, too short).
    case invalidKey(String)
    /// No configured key has the token's `kid` (for the token's algorithm).
    case unknownKeyID
    /// The token names no `kid`, and more than one key could have signed it.
    case keyIDRequired
    /// Signing failed inside OpenSSL or the claims could not be encoded.
    case signingFailed(String)

    public var description: String {
        switch self {
        case .malformed(let reason): "malformed JWT: \(reason)"
        case .unsupportedAlgorithm(let alg): "unsupported JWT algorithm \(alg.prefix(16))"
        case .algorithmMismatch(let expected, let actual): "JWT algorithm \(actual.prefix(16)) does not match the configured \(expected)"
        case .unsupportedCriticalHeader: "JWT has unsupported critical header parameters"
        case .unacceptedType(let type): "JWT type \(type.prefix(32)) is not an identity or access token"
        case .invalidSignature: "JWT signature does not verify"
        case .expired: "JWT expired"
        case .notYetValid: "JWT not yet valid"
        case .issuedInFuture: "JWT issued in the future"
        case .tooOld: "JWT older than the maximum token age"
        case .invalidIssuer: "JWT issuer is not accepted"
        case .invalidAudience: "JWT audience is not accepted"
        case .missingClaim(let name): "JWT lacks the \(name) claim"
        case .invalidKey(let reason): "invalid JWT key: \(reason)"
        case .unknownKeyID: "no JWT key has the token's kid"
        case .keyIDRequired: "JWT has no kid and several keys could verify it"
        case .signingFailed(let reason): "JWT signing failed: \(reason)"
        }
    }
}
