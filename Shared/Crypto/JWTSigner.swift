import Foundation

/// Issues compact JWTs signed with HS256 or RS256 (for the dev-token CLI and tests;
/// production tokens come from the apps' identity provider).
public struct JWTSigner: Sendable {
    enum Material: Sendable {
        case secret([UInt8])
        case rsa(EVPKey)
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
        material = .rsa(try EVPKey.rsaPrivateKey(pem: pem))
        algorithm = .rs256
        self.keyID = keyID
    }

    /// Signs `claims` (e.g. `["sub": "user-1", "exp": .int(…)]`).
    /// - Throws: ``JWTError/signingFailed(_:)``.
    public func sign(_ claims: [String: JSONValue]) throws(JWTError) -> String {
        try sign(encoding: JSONValue.object(claims))
    }

    /// Signs any `Encodable` that encodes as a JSON object.
    /// - Throws: ``JWTError/signingFailed(_:)``.
    public func sign(encoding claims: some Encodable) throws(JWTError) -> String {
        var header: [String: JSONValue] = ["alg": .string(algorithm.rawValue), "typ": "JWT"]
        if let keyID { header["kid"] = .string(keyID) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let headerJSON: Data
        let payloadJSON: Data
        do {
            headerJSON = try encoder.encode(JSONValue.object(header))
            payloadJSON = try encoder.encode(claims)
        } catch {
            throw .signingFailed("claims do not encode as JSON")
        }
        let signingInput = Base64URL.encode(headerJSON) + "." + Base64URL.encode(payloadJSON)
        let signature: [UInt8]
        switch material {
        case .secret(let secret):
            signature = HMAC.sha256(key: secret, message: Array(signingInput.utf8))
        case .rsa(let privateKey):
            signature = try privateKey.signSHA256(message: Array(signingInput.utf8))
        }
        return signingInput + "." + Base64URL.encode(signature)
    }
}
