import Foundation

/// Verifies compact-serialized JWS tokens (JWTs) with one key: HS256, RS256 or ES256.
///
/// The algorithm comes from the configured key; a token naming any other one
/// (including `none`) is rejected before its signature is looked at. Time-based
/// claims are checked against an injectable clock with a leeway for clock skew
/// (``JWTClaimRules``). Several keys chosen by `kid` (a JWKS) are the
/// `TokenVerification` module's job; it uses the same pieces
/// (``UnverifiedJWT``, ``JWTClaimRules``).
public struct JWTVerifier: Sendable {
    /// The key (and with it the algorithm) tokens must be signed with.
    public let key: JWTVerificationKey
    /// The `iss` tokens must carry, or `nil` to accept any.
    public var issuer: String?
    /// A value `aud` must contain, or `nil` to accept any.
    public var audience: String?
    /// Clock skew tolerated on `exp`, `nbf` and `iat` (at most ``JWTClaimRules/maximumLeeway``).
    public var leeway: Duration
    /// The oldest token accepted by its `iat`, or nil for no limit.
    public var maxAge: Duration?
    /// Whether tokens without `exp` are rejected (default `true`: a token without
    /// an expiry would be valid forever).
    public var requireExpiration: Bool
    /// The longest token accepted, in bytes.
    public var maxTokenLength: Int
    /// The current time; injectable for tests.
    public var now: @Sendable () -> Date

    /// Creates a verifier.
    /// - Parameters:
    ///   - key: the verification key.
    ///   - issuer: the required `iss`, if any.
    ///   - audience: the required `aud` member, if any.
    ///   - leeway: clock skew tolerated on `exp`/`nbf`/`iat`. Default 60 s, at most 5 minutes.
    ///   - maxAge: the oldest token accepted by its `iat`. Default nil (no limit).
    ///   - requireExpiration: reject tokens without `exp`. Default `true`.
    ///   - maxTokenLength: longest token accepted. Default 8 KiB.
    ///   - now: the clock. Default the system clock.
    public init(
        key: JWTVerificationKey,
        issuer: String? = nil,
        audience: String? = nil,
        leeway: Duration = .seconds(60),
        maxAge: Duration? = nil,
        requireExpiration: Bool = true,
        maxTokenLength: Int = 8 * 1024,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.key = key
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway
        self.maxAge = maxAge
        self.requireExpiration = requireExpiration
        self.maxTokenLength = maxTokenLength
        self.now = now
    }

    /// The claim rules this verifier applies.
    public var rules: JWTClaimRules {
        JWTClaimRules(
            issuers: issuer.map { [$0] } ?? [], audiences: audience.map { [$0] } ?? [], leeway: leeway, maxAge: maxAge,
            requireExpiration: requireExpiration, now: now)
    }

    /// Checks `token`'s structure, algorithm, signature, validity period, issuer and audience.
    /// - Returns: the token's claims.
    /// - Throws: ``JWTError`` naming the first check that failed.
    public func verify(_ token: String) throws(JWTError) -> JWTClaims {
        let claims = try UnverifiedJWT(token, maxLength: maxTokenLength).verifiedClaims(using: key)
        try rules.check(claims)
        return claims
    }
}
