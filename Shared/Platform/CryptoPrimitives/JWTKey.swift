/// A JWS algorithm this library implements.
public enum JWTAlgorithm: String, Sendable, CaseIterable {
    /// HMAC-SHA256 with a shared secret.
    case hs256 = "HS256"
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = "RS256"
    /// ECDSA on P-256 with SHA-256 (signature: the 64-byte `R || S`).
    case es256 = "ES256"

    /// Whether the algorithm verifies with a public key (never a shared secret).
    public var isAsymmetric: Bool { self != .hs256 }
}

/// The key a ``JWTVerifier`` checks signatures with. Its algorithm is fixed by
/// the key, never taken from the token, which is what blocks `alg` confusion.
public struct JWTVerificationKey: Sendable, CustomStringConvertible {
    enum Material: Sendable {
        case secret([UInt8])
        /// An RSA key (RS256) or a P-256 key (ES256); the algorithm says which.
        case publicKey(EVPKey)
    }

    let material: Material
    /// The only algorithm tokens may name.
    public let algorithm: JWTAlgorithm

    /// An HS256 shared secret.
    /// - Throws: ``JWTError/invalidKey(_:)`` if shorter than 32 bytes (RFC 7518 §3.2
    ///   requires a key at least as long as the hash output).
    public static func hs256(secret: some Collection<UInt8>) throws(JWTError) -> JWTVerificationKey {
        JWTVerificationKey(material: .secret(try checkedSecret(secret)), algorithm: .hs256)
    }

    /// An RS256 public key in PEM (`-----BEGIN PUBLIC KEY-----`), 2048 to 8192 bits.
    /// - Throws: ``JWTError/invalidKey(_:)`` if it does not parse or is not an RSA key of that size.
    public static func rs256(publicKeyPEM: String) throws(JWTError) -> JWTVerificationKey {
        JWTVerificationKey(material: .publicKey(try EVPKey.rsaPublicKey(pem: publicKeyPEM)), algorithm: .rs256)
    }

    /// An ES256 public key in PEM (`-----BEGIN PUBLIC KEY-----`, P-256).
    /// - Throws: ``JWTError/invalidKey(_:)`` if the PEM does not hold one.
    public static func es256(publicKeyPEM: String) throws(JWTError) -> JWTVerificationKey {
        JWTVerificationKey(material: .publicKey(try EVPKey.p256PublicKey(pem: publicKeyPEM)), algorithm: .es256)
    }

    /// An RS256 public key from a JWK's modulus `n` and exponent `e` (big-endian bytes).
    /// - Throws: ``JWTError/invalidKey(_:)`` unless they make an RSA key of 2048 to
    ///   8192 bits with an odd exponent of at most 64 bits.
    public static func rs256(modulus: [UInt8], exponent: [UInt8]) throws(JWTError) -> JWTVerificationKey {
        JWTVerificationKey(material: .publicKey(try EVPKey.rsaPublicKey(modulus: modulus, exponent: exponent)), algorithm: .rs256)
    }

    /// An ES256 public key from a JWK's P-256 coordinates `x` and `y` (32 bytes each).
    /// - Throws: ``JWTError/invalidKey(_:)`` unless they are a point on P-256.
    public static func es256(x: [UInt8], y: [UInt8]) throws(JWTError) -> JWTVerificationKey {
        JWTVerificationKey(material: .publicKey(try EVPKey.p256PublicKey(x: x, y: y)), algorithm: .es256)
    }

    /// Names the algorithm only: key material is never printed.
    public var description: String { "\(algorithm.rawValue) verification key" }

    /// Whether `signature` is this key's signature over `signingInput`, under
    /// the key's own algorithm (HMAC compared in constant time).
    func verifies(_ signature: [UInt8], over signingInput: [UInt8]) -> Bool {
        switch material {
        case .secret(let secret):
            constantTimeEquals(HMAC.sha256(key: secret, message: signingInput), signature)
        case .publicKey(let publicKey):
            publicKey.verifySHA256(signature: signature, message: signingInput)
        }
    }

    static func checkedSecret(_ secret: some Collection<UInt8>) throws(JWTError) -> [UInt8] {
        guard secret.count >= 32 else { throw .invalidKey("HS256 secret must be at least 32 bytes") }
        return Array(secret)
    }
}
