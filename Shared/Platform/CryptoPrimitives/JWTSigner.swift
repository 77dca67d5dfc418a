import Foundation

/// Issues compact JWTs signed with HS256, RS256 or ES256 (for the dev-token
/// CLI and tests; production tokens come from the apps' identity provider).
///
/// An RS256 or ES256 signer can make its own key pair (``generate(_:keyID:)``)
/// and publish its public half as a JWK (``publicJWK``), so a test can stand
/// in for an identity provider's JWKS endpoint.
public struct JWTSigner: Sendable {
    enum Material: Sendable {
        case secret([UInt8])
        /// An RSA (RS256) or P-256 (ES256) private key.
        case privateKey(EVPKey)
    }

    private let material: Material
    /// The algorithm written into every token's header.
    public let algorithm: JWTAlgorithm
    /// The `kid` header, if set.
    public var keyID: String?

    /// A signer with an HS256 shared secret of at least 32 bytes.
    /// - Throws: ``JWTError/invalidKey(_:)`` if the secret is too short.
    public init(hs256Secret secret: some Collection<UInt8>, keyID: String? = nil) throws(JWTError) {
        material = .secret(try JWTVerificationKey.checkedSecret(secret))
        algorithm = .hs256
        self.keyID = keyID
    }

    /// A signer with an unencrypted RSA private key in PEM (PKCS#8 or PKCS#1), at least 2048 bits.
    /// - Throws: ``JWTError/invalidKey(_:)`` if the PEM does not hold such a key.
    public init(rs256PrivateKeyPEM pem: String, keyID: String? = nil) throws(JWTError) {
        material = .privateKey(try EVPKey.rsaPrivateKey(pem: pem))
        algorithm = .rs256
        self.keyID = keyID
    }

    /// A signer with an unencrypted P-256 private key in PEM (PKCS#8 or SEC 1).
    /// - Throws: ``JWTError/invalidKey(_:)`` if the PEM does not hold such a key.
    public init(es256PrivateKeyPEM pem: String, keyID: String? = nil) throws(JWTError) {
        material = .privateKey(try EVPKey.p256PrivateKey(pem: pem))
        algorithm = .es256
        self.keyID = keyID
    }

    private init(material: Material, algorithm: JWTAlgorithm, keyID: String?) {
        self.material = material
        self.algorithm = algorithm
        self.keyID = keyID
    }

    /// A signer with a freshly generated key: RSA 2048 bits for RS256, P-256 for ES256.
    /// - Throws: ``JWTError/signingFailed(_:)`` for HS256 (it has no key pair)
    ///   or when OpenSSL cannot generate the key.
    public static func generate(_ algorithm: JWTAlgorithm, keyID: String? = nil) throws(JWTError) -> JWTSigner {
        let kind: EVPKey.Kind
        switch algorithm {
        case .rs256: kind = .rsa
        case .es256: kind = .p256
        case .hs256: throw .signingFailed("HS256 has no key pair to generate")
        }
        return JWTSigner(material: .privateKey(try EVPKey.generate(kind)), algorithm: algorithm, keyID: keyID)
    }

    /// The public half of an RS256 or ES256 key as a JWK (`kty`, `use: sig`,
    /// `alg`, `kid` when set, and `n`/`e` or `crv`/`x`/`y`); nil for HS256,
    /// whose secret is never published.
    public var publicJWK: [String: JOSEValue]? {
        guard case .privateKey(let key) = material, let components = try? key.publicComponents() else { return nil }
        var jwk: [String: JOSEValue] = ["use": "sig", "alg": .string(algorithm.rawValue)]
        if let keyID { jwk["kid"] = .string(keyID) }
        switch algorithm {
        case .rs256:
            jwk["kty"] = "RSA"
            jwk["n"] = .string(Base64URL.encode(components.first))
            jwk["e"] = .string(Base64URL.encode(components.second))
        case .es256:
            jwk["kty"] = "EC"
            jwk["crv"] = "P-256"
            jwk["x"] = .string(Base64URL.encode(components.first))
            jwk["y"] = .string(Base64URL.encode(components.second))
        case .hs256:
            return nil
        }
        return jwk
    }

    /// Signs `claims` (e.g. `["sub": "user-1", "exp": .int(…)]`).
    /// - Throws: ``JWTError/signingFailed(_:)``.
    public func sign(_ claims: [String: JOSEValue]) throws(JWTError) -> String {
        try sign(encoding: JOSEValue.object(claims))
    }

    /// Signs any `Encodable` that encodes as a JSON object.
    /// - Throws: ``JWTError/signingFailed(_:)``.
    public func sign(encoding claims: some Encodable) throws(JWTError) -> String {
        var header: [String: JOSEValue] = ["alg": .string(algorithm.rawValue), "typ": "JWT"]
        if let keyID { header["kid"] = .string(keyID) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let headerJSON: Data
        let payloadJSON: Data
        do {
            headerJSON = try encoder.encode(JOSEValue.object(header))
            payloadJSON = try encoder.encode(claims)
        } catch {
            throw .signingFailed("claims do not encode as JSON")
        }
        let signingInput = Base64URL.encode(headerJSON) + "." + Base64URL.encode(payloadJSON)
        let signature: [UInt8]
        switch material {
        case .secret(let secret):
            signature = HMAC.sha256(key: secret, message: Array(signingInput.utf8))
        case .privateKey(let privateKey):
            signature = try privateKey.signSHA256(message: Array(signingInput.utf8))
        }
        return signingInput + "." + Base64URL.encode(signature)
    }
}
