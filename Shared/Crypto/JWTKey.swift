/// A JWS algorithm this library implements.
public enum JWTAlgorithm: String, Sendable {
    /// HMAC-SHA256 with a shared secret.
    case hs256 = "HS256"
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = "RS256"
}

/// The key a ``JWTVerifier`` checks signatures with. Its algorithm is fixed by
/// the key, never taken from the token, which is what blocks `alg` confusion.
public struct JWTVerificationKey: Sendable, CustomStringConvertible {
    enum Material: Sendable {
        case secret([UInt8])
        case rsa(EVPKey)
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

    /// An RS256 public key in PEM (`-----BEGIN PUBLIC KEY-----`), at least 2048 bits.
    /// - Throws: ``JWTError/invalidKey(_:)`` if it does not parse or is not a large enough RSA key.
    public static func rs256(publicKeyPEM: String) throws(JWTError) -> JWTVerificationKey {
        JWTVerificationKey(material: .rsa(try EVPKey.rsaPublicKey(pem: publicKeyPEM)), algorithm: .rs256)
    }

    /// Names the algorithm only: key material is never printed.
    public var description: String { "\(algorithm.rawValue) verification key" }

    static func checkedSecret(_ secret: some Collection<UInt8>) throws(JWTError) -> [UInt8] {
        guard secret.count >= 32 else { throw .invalidKey("HS256 secret must be at least 32 bytes") }
        return Array(secret)
    }
}
