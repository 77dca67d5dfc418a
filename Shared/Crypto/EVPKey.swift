internal import CCrypto

/// Owns an OpenSSL `EVP_PKEY` loaded from PEM.
///
/// `@unchecked Sendable`: after loading, the key is only read (verify/sign each
/// create their own `EVP_MD_CTX`), and OpenSSL 3 documents `EVP_PKEY` as safe to
/// use concurrently from several threads as long as no thread modifies it.
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer

    /// The smallest RSA modulus accepted (NIST SP 800-131A).
    static let minimumRSABits: Int32 = 2048

    private init(pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// Loads an RSA public key from a `-----BEGIN PUBLIC KEY-----` PEM.
    static func rsaPublicKey(pem: String) throws(JWTError) -> EVPKey {
        try load(pem, what: "public key") { bio in PEM_read_bio_PUBKEY(bio, nil, nil, nil) }
    }

    /// Loads an unencrypted RSA private key from a PKCS#8 or PKCS#1 PEM.
    static func rsaPrivateKey(pem: String) throws(JWTError) -> EVPKey {
        // A password callback that supplies none: without it OpenSSL would prompt on
        // the terminal for an encrypted key.
        try load(pem, what: "private key") { bio in PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil) }
    }

    private static func load(_ pem: String, what: String, _ read: (OpaquePointer) -> OpaquePointer?) throws(JWTError) -> EVPKey {
        guard pem.utf8.count <= 64 * 1024 else { throw .invalidKey("\(what) PEM too large") }
        let bytes = Array(pem.utf8)
        let key: OpaquePointer? = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return read(bio)
        }
        ERR_clear_error()
        guard let key else { throw .invalidKey("cannot parse \(what) PEM") }
        let wrapped = EVPKey(pointer: key)
        guard sf_evp_pkey_is_rsa(key) == 1 else { throw .invalidKey("\(what) is not RSA") }
        guard sf_evp_pkey_bits(key) >= minimumRSABits else { throw .invalidKey("RSA \(what) shorter than \(minimumRSABits) bits") }
        return wrapped
    }

    /// RSASSA-PKCS1-v1_5 verification with SHA-256 (JWS `RS256`).
    func verifySHA256(signature: [UInt8], message: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer {
            EVP_MD_CTX_free(context)
            ERR_clear_error()
        }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pointer) == 1 else { return false }
        return withStableBytes(signature) { signaturePointer, signatureCount in
            withStableBytes(message) { messagePointer, messageCount in
                EVP_DigestVerify(context, signaturePointer, signatureCount, messagePointer, messageCount) == 1
            }
        }
    }

    /// RSASSA-PKCS1-v1_5 signature with SHA-256 (JWS `RS256`).
    func signSHA256(message: [UInt8]) throws(JWTError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw .signingFailed("out of memory") }
        defer {
            EVP_MD_CTX_free(context)
            ERR_clear_error()
        }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pointer) == 1 else { throw .signingFailed("EVP_DigestSignInit") }
        var length = 0
        let sized = withStableBytes(message) { EVP_DigestSign(context, nil, &length, $0, $1) }
        guard sized == 1, length > 0 else { throw .signingFailed("EVP_DigestSign (size)") }
        var signature = [UInt8](repeating: 0, count: length)
        let signed = withStableBytes(message) { messagePointer, messageCount in
            signature.withUnsafeMutableBufferPointer { EVP_DigestSign(context, $0.baseAddress, &length, messagePointer, messageCount) }
        }
        guard signed == 1 else { throw .signingFailed("EVP_DigestSign") }
        return Array(signature.prefix(length))
    }
}
