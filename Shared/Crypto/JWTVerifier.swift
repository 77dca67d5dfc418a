import Basics
import Foundation

/// Verifies compact-serialized JWS tokens (JWTs) signed with HS256 or RS256.
///
/// The algorithm comes from the configured key; a token naming any other one
/// (including `none`) is rejected before its signature is looked at. Time-based
/// claims are checked against an injectable clock with a leeway for clock skew.
public struct JWTVerifier: Sendable {
    /// The key (and with it the algorithm) tokens must be signed with.
    public let key: JWTVerificationKey
    /// The `iss` tokens must carry, or `nil` to accept any.
    public var issuer: String?
    /// A value `aud` must contain, or `nil` to accept any.
    public var audience: String?
    /// Clock skew tolerated on `exp` and `nbf`.
    public var leeway: Duration
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
    ///   - leeway: clock skew tolerated on `exp`/`nbf`. Default 60 s.
    ///   - requireExpiration: reject tokens without `exp`. Default `true`.
    ///   - maxTokenLength: longest token accepted. Default 8 KiB.
    ///   - now: the clock. Default the system clock.
    public init(
        key: JWTVerificationKey,
        issuer: String? = nil,
        audience: String? = nil,
        leeway: Duration = .seconds(60),
        requireExpiration: Bool = true,
        maxTokenLength: Int = 8 * 1024,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.key = key
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway
        self.requireExpiration = requireExpiration
        self.maxTokenLength = maxTokenLength
        self.now = now
    }

    /// Checks `token`'s structure, algorithm, signature, validity period, issuer and audience.
    /// - Returns: the token's claims.
    /// - Throws: ``JWTError`` naming the first check that failed.
    public func verify(_ token: String) throws(JWTError) -> JWTClaims {
        guard token.utf8.count <= maxTokenLength else { throw .malformed("token longer than \(maxTokenLength) bytes") }
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("expected three dot-separated parts") }

        let header = try Self.object(parts[0], "header")
        guard case .string(let alg)? = header["alg"] else { throw .malformed("header lacks alg") }
        guard alg == key.algorithm.rawValue else {
            if JWTAlgorithm(rawValue: alg) == nil { throw .unsupportedAlgorithm(alg) }
            throw .algorithmMismatch(expected: key.algorithm.rawValue, actual: alg)
        }
        guard header["crit"] == nil else { throw .unsupportedCriticalHeader }

        guard let signature = Base64URL.decode(String(decoding: parts[2], as: UTF8.self)) else {
            throw .malformed("signature is not base64url")
        }
        let signingInput = Array(token.utf8.prefix(parts[0].count + 1 + parts[1].count))
        guard verifySignature(signature, signingInput) else { throw .invalidSignature }

        let claims = try JWTClaims(raw: Self.object(parts[1], "payload"))
        try checkTimes(claims)
        if let issuer, claims.issuer != issuer { throw .invalidIssuer }
        if let audience, !claims.audience.contains(audience) { throw .invalidAudience }
        return claims
    }

    private func verifySignature(_ signature: [UInt8], _ signingInput: [UInt8]) -> Bool {
        switch key.material {
        case .secret(let secret):
            constantTimeEquals(HMAC.sha256(key: secret, message: signingInput), signature)
        case .rsa(let publicKey):
            publicKey.verifySHA256(signature: signature, message: signingInput)
        }
    }

    private func checkTimes(_ claims: JWTClaims) throws(JWTError) {
        let current = now()
        let skew = leeway.inSeconds
        if let expiresAt = claims.expiresAt {
            // RFC 7519 §4.1.4: valid only while the current time is before `exp`.
            guard current < expiresAt.addingTimeInterval(skew) else { throw .expired }
        } else if requireExpiration {
            throw .missingClaim("exp")
        }
        if let notBefore = claims.notBefore, current.addingTimeInterval(skew) < notBefore {
            throw .notYetValid
        }
    }

    private static func object(_ part: Substring.UTF8View.SubSequence, _ name: String) throws(JWTError) -> [String: JSONValue] {
        guard let bytes = Base64URL.decode(String(decoding: part, as: UTF8.self)) else {
            throw .malformed("\(name) is not base64url")
        }
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)), case .object(let object) = value else {
            throw .malformed("\(name) is not a JSON object")
        }
        // RFC 7515 §4 and RFC 7519 §4: header parameter and claim names are unique.
        // The decoder keeps one of two members with the same name (the first), another
        // reader may keep the other (`{"alg":"HS256","alg":"…"}`): refuse such tokens.
        guard memberCount(bytes) == object.count else { throw .malformed("\(name) has duplicate member names") }
        return object
    }

    /// The number of members of the top-level object in `bytes` (valid JSON, an
    /// object): commas outside strings and nested values, plus one when not empty.
    static func memberCount(_ bytes: [UInt8]) -> Int {
        var depth = 0, commas = 0, inString = false, escaped = false, empty = true
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true; if depth == 1 { empty = false }
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ","): if depth == 1 { commas += 1 }
            default: break
            }
        }
        return empty ? 0 : commas + 1
    }
}
