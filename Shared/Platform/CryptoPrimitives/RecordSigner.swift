/// Signs records with an ES256 private key, in the ``RecordSignature``
/// format. Held only by the one writer whose records others must be able to
/// trust (the projector); readers hold a ``RecordVerifier`` with the public half.
public struct RecordSigner: Sendable {
    private let key: EVPKey
    /// The key's thumbprint, written before every signature.
    public let keyID: String

    /// A signer with an unencrypted P-256 private key in PEM (PKCS#8 or SEC 1).
    /// - Throws: ``CryptoError/invalidKey(_:)`` if the PEM does not hold such a key.
    public init(privateKeyPEM pem: String) throws(CryptoError) {
        do {
            try self.init(key: try EVPKey.p256PrivateKey(pem: pem))
        } catch {
            throw CryptoError(error)
        }
    }

    /// A signer with a freshly generated P-256 key (tests, and tools that make a key pair).
    /// - Throws: ``CryptoError/signingFailed(_:)`` if OpenSSL cannot generate one.
    public static func generate() throws(CryptoError) -> RecordSigner {
        do {
            return try RecordSigner(key: try EVPKey.generate(.p256))
        } catch {
            throw CryptoError(error)
        }
    }

    private init(key: EVPKey) throws(JWTError) {
        self.key = key
        self.keyID = try RecordSignature.keyID(of: key)
    }

    /// The public half, as PEM, for the verifiers' configuration.
    /// - Throws: ``CryptoError/signingFailed(_:)`` if OpenSSL cannot write it.
    public func publicKeyPEM() throws(CryptoError) -> String {
        do {
            return try key.publicKeyPEM()
        } catch {
            throw CryptoError(error)
        }
    }

    /// `<kid>.<base64url R || S>` over `fields`, in order.
    /// - Throws: ``CryptoError/signingFailed(_:)`` when OpenSSL fails.
    public func sign(_ fields: [[UInt8]]) throws(CryptoError) -> String {
        do {
            return keyID + "." + Base64URL.encode(try key.signSHA256(message: RecordSignature.signedBytes(fields)))
        } catch {
            throw CryptoError(error)
        }
    }
}
