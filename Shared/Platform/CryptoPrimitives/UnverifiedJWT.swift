import Foundation

/// A compact JWS split into its parts, its header read, its signature not yet
/// checked: what a verifier needs to pick the key (`alg`, `kid`) before it
/// verifies. Nothing in it may be trusted until ``verifiedClaims(using:)`` returns.
public struct UnverifiedJWT: Sendable {
    /// The longest `kid` accepted.
    public static let maximumKeyIDLength = 256
    /// The `typ` values accepted when a header has one, compared without case
    /// and without an `application/` prefix (RFC 7515 §4.1.9): `JWT` (what
    /// identity providers put on ID tokens) and `at+jwt` (RFC 9068 access
    /// tokens). Any other type is a JWT made for something else, signed with
    /// the same keys (an OpenID logout token, `logout+jwt`; a security event,
    /// `secevent+jwt`; a DPoP proof, `dpop+jwt`), and must never pass as a
    /// user's token (RFC 8725 §3.11). A header without `typ` is accepted, as
    /// many providers omit it.
    public static let acceptedTypes: Set<String> = ["jwt", "at+jwt"]

    /// The header's `alg`: one this library implements (`none` never is).
    public let algorithm: JWTAlgorithm
    /// The header's `kid`, if any (at most ``maximumKeyIDLength`` bytes).
    public let keyID: String?
    /// Whether the header lists `crit` extensions (refused at verification).
    let hasCriticalHeader: Bool
    /// `header.payload`, the bytes the signature covers.
    let signingInput: [UInt8]
    let payloadPart: String
    let signaturePart: String

    /// Splits `token` and reads its header.
    /// - Parameters:
    ///   - token: the compact serialization (`header.payload.signature`).
    ///   - maxLength: the longest token accepted, in bytes.
    /// - Throws: ``JWTError/malformed(_:)`` for a token that is too long, not
    ///   three base64url parts, a header that is not a JSON object (or has a
    ///   member twice), no `alg`, a `kid` or `typ` that is not a short string;
    ///   ``JWTError/unsupportedAlgorithm(_:)`` for `none` or any algorithm not implemented;
    ///   ``JWTError/unacceptedType(_:)`` for a `typ` not in ``acceptedTypes``.
    public init(_ token: String, maxLength: Int = 8 * 1024) throws(JWTError) {
        guard token.utf8.count <= maxLength else { throw .malformed("token longer than \(maxLength) bytes") }
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("expected three dot-separated parts") }

        let header = try Self.object(parts[0], "header")
        guard case .string(let alg)? = header["alg"] else { throw .malformed("header lacks alg") }
        guard let algorithm = JWTAlgorithm(rawValue: alg) else { throw .unsupportedAlgorithm(alg) }
        switch header["kid"] {
        case nil:
            keyID = nil
        case .string(let kid)? where kid.utf8.count <= Self.maximumKeyIDLength:
            keyID = kid
        default:
            throw .malformed("kid must be a string of at most \(Self.maximumKeyIDLength) bytes")
        }
        switch header["typ"] {
        case nil:
            break
        case .string(let type)? where type.utf8.count <= 64:
            guard Self.acceptedTypes.contains(Self.normalizedType(type)) else { throw .unacceptedType(type) }
        default:
            throw .malformed("typ must be a string of at most 64 bytes")
        }
        self.algorithm = algorithm
        hasCriticalHeader = header["crit"] != nil
        signingInput = Array(token.utf8.prefix(parts[0].count + 1 + parts[1].count))
        payloadPart = String(decoding: parts[1], as: UTF8.self)
        signaturePart = String(decoding: parts[2], as: UTF8.self)
    }

    /// Checks the signature with `key` and, only if it verifies, reads the claims.
    ///
    /// The key decides the algorithm: a token naming another one is refused
    /// before its signature is looked at (an RS256 or ES256 key never checks an
    /// HMAC, so a public key can never serve as an HS256 secret).
    /// - Returns: the claims, types checked; their values are not (see ``JWTClaimRules``).
    /// - Throws: ``JWTError/algorithmMismatch(expected:actual:)``,
    ///   ``JWTError/unsupportedCriticalHeader``, ``JWTError/malformed(_:)``,
    ///   ``JWTError/invalidSignature``.
    public func verifiedClaims(using key: JWTVerificationKey) throws(JWTError) -> JWTClaims {
        guard algorithm == key.algorithm else {
            throw .algorithmMismatch(expected: key.algorithm.rawValue, actual: algorithm.rawValue)
        }
        guard !hasCriticalHeader else { throw .unsupportedCriticalHeader }
        guard let signature = Base64URL.decode(signaturePart) else { throw .malformed("signature is not base64url") }
        guard key.verifies(signature, over: signingInput) else { throw .invalidSignature }
        return try JWTClaims(raw: Self.object(payloadPart.utf8[...], "payload"))
    }

    static func object(_ part: Substring.UTF8View.SubSequence, _ name: String) throws(JWTError) -> [String: JOSEValue] {
        guard let bytes = Base64URL.decode(String(decoding: part, as: UTF8.self)) else {
            throw .malformed("\(name) is not base64url")
        }
        guard let value = try? JSONDecoder().decode(JOSEValue.self, from: Data(bytes)), case .object(let object) = value else {
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

    /// `typ` as compared: lowercased, without a leading `application/`.
    static func normalizedType(_ type: String) -> String {
        let lowered = type.lowercased()
        return lowered.hasPrefix("application/") ? String(lowered.dropFirst("application/".count)) : lowered
    }
}
