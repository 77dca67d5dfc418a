import Timing
import Foundation

/// What a token's claims must satisfy once its signature verified: validity
/// period (`exp`, `nbf`, `iat`, an optional maximum age), issuer and audience.
/// The same rules apply whichever key verified the token.
public struct JWTClaimRules: Sendable {
    /// The largest clock-skew leeway honoured; a larger ``leeway`` counts as this.
    public static let maximumLeeway: Duration = .seconds(300)

    /// The `iss` values accepted; empty accepts any.
    public var issuers: [String]
    /// The `aud` values accepted (a token's `aud` must contain one); empty accepts any.
    public var audiences: [String]
    /// Clock skew tolerated on `exp`, `nbf` and `iat`, at most ``maximumLeeway``. Default 60 s.
    public var leeway: Duration
    /// The oldest token accepted, by its `iat` (which it then must have); nil for no limit. Default nil.
    public var maxAge: Duration?
    /// Whether tokens without `exp` are rejected. Default `true`: a token
    /// without an expiry would be valid forever.
    public var requireExpiration: Bool
    /// The current time; injectable for tests.
    public var now: @Sendable () -> Date

    /// Creates rules; every parameter is a property above, with its default.
    public init(
        issuers: [String] = [],
        audiences: [String] = [],
        leeway: Duration = .seconds(60),
        maxAge: Duration? = nil,
        requireExpiration: Bool = true,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.issuers = issuers
        self.audiences = audiences
        self.leeway = leeway
        self.maxAge = maxAge
        self.requireExpiration = requireExpiration
        self.now = now
    }

    /// The leeway actually applied: ``leeway`` within `0...maximumLeeway`.
    public var effectiveLeeway: Duration { min(max(leeway, .zero), Self.maximumLeeway) }

    /// Checks, in this order: `exp` (present unless not required, and not
    /// passed), `nbf` (reached), `iat` (not in the future; not older than
    /// ``maxAge``), `iss`, `aud`. Every time comparison allows ``effectiveLeeway``.
    /// - Throws: ``JWTError`` naming the first rule broken.
    public func check(_ claims: JWTClaims) throws(JWTError) {
        let current = now()
        let skew = effectiveLeeway.inSeconds
        if let expiresAt = claims.expiresAt {
            // RFC 7519 §4.1.4: valid only while the current time is before `exp`.
            guard current < expiresAt.addingTimeInterval(skew) else { throw .expired }
        } else if requireExpiration {
            throw .missingClaim("exp")
        }
        if let notBefore = claims.notBefore, current.addingTimeInterval(skew) < notBefore {
            throw .notYetValid
        }
        if let issuedAt = claims.issuedAt, current.addingTimeInterval(skew) < issuedAt {
            throw .issuedInFuture
        }
        if let maxAge {
            guard let issuedAt = claims.issuedAt else { throw .missingClaim("iat") }
            guard current.timeIntervalSince(issuedAt) <= maxAge.inSeconds + skew else { throw .tooOld }
        }
        if !issuers.isEmpty {
            guard let issuer = claims.issuer, issuers.contains(issuer) else { throw .invalidIssuer }
        }
        if !audiences.isEmpty, !claims.audience.contains(where: audiences.contains) {
            throw .invalidAudience
        }
    }
}
