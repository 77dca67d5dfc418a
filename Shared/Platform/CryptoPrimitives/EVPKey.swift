internal import CCrypto

/// Owns an OpenSSL `EVP_PKEY`: an RSA key (RS256) or a P-256 key (ES256),
/// public or private, loaded from PEM, built from a JWK's components, or
/// generated.
///
/// `@unchecked Sendable`: after loading, the key is only read (verify/sign each
/// create their own `EVP_MD_CTX`), and OpenSSL 3 documents `EVP_PKEY` as safe to
/// use concurrently from several threads as long as no thread modifies it.
final class EVPKey: @unchecked Sendable {
    /// Which kind of key this is; every constructor checks it.
    enum Kind: Sendable, Equatable {
        /// RSA with a modulus of ``minimumRSABits`` to ``maximumRSABits``.
        case rsa
        /// ECDSA on NIST P-256 (`prime256v1`).
        case p256
    }

    let pointer: OpaquePointer
    let kind: Kind

    /// The smallest RSA modulus accepted (NIST SP 800-131A).
    static let minimumRSABits: Int32 = 2048
    /// The largest RSA modulus accepted: verification cost grows with the
    /// square of the modulus, and a key set is fetched from the network.
    static let maximumRSABits: Int32 = 8192

    private init(pointer: OpaquePointer, kind: Kind) {
        self.pointer = pointer
        self.kind = kind
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    // MARK: - PEM

    /// Loads an RSA public key from a `-----BEGIN PUBLIC KEY-----` PEM.
    static func rsaPublicKey(pem: String) throws(JWTError) -> EVPKey {
        try load(pem, what: "public key", kind: .rsa) { bio in PEM_read_bio_PUBKEY(bio, nil, nil, nil) }
    }

    /// Loads a P-256 public key from a `-----BEGIN PUBLIC KEY-----` PEM
    /// (a SubjectPublicKeyInfo), with OpenSSL's public-key check.
    static func p256PublicKey(pem: String) throws(JWTError) -> EVPKey {
        let key = try load(pem, what: "public key", kind: .p256) { bio in PEM_read_bio_PUBKEY(bio, nil, nil, nil) }
        guard key.passesPublicKeyCheck() else { throw .invalidKey("public key fails OpenSSL's key check") }
        return key
    }

    /// Loads an unencrypted RSA private key from a PKCS#8 or PKCS#1 PEM.
    static func rsaPrivateKey(pem: String) throws(JWTError) -> EVPKey {
        try load(pem, what: "private key", kind: .rsa, readPrivateKey)
    }

    /// Loads an unencrypted P-256 private key from a PKCS#8 or SEC 1 PEM.
    static func p256PrivateKey(pem: String) throws(JWTError) -> EVPKey {
        try load(pem, what: "private key", kind: .p256, readPrivateKey)
    }

    private static func readPrivateKey(_ bio: OpaquePointer) -> OpaquePointer? {
        // A password callback that supplies none: without it OpenSSL would prompt on
        // the terminal for an encrypted key.
        PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
    }

    private static func load(_ pem: String, what: String, kind: Kind, _ read: (OpaquePointer) -> OpaquePointer?) throws(JWTError) -> EVPKey {
        guard pem.utf8.count <= 64 * 1024 else { throw .invalidKey("\(what) PEM too large") }
        // Secret files are read with their trailing newline trimmed; OpenSSL's PEM reader wants the END line ended.
        let bytes = Array(pem.utf8) + (pem.hasSuffix("\n") ? [] : [UInt8(ascii: "\n")])
        let key: OpaquePointer? = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return read(bio)
        }
        ERR_clear_error()
        guard let key else { throw .invalidKey("cannot parse \(what) PEM") }
        let wrapped = EVPKey(pointer: key, kind: kind)
        try wrapped.check(what)
        return wrapped
    }

    // MARK: - JWK components

    /// An RSA public key from a JWK's `n` and `e` (big-endian magnitudes).
    /// - Throws: ``JWTError/invalidKey(_:)`` when the values do not make an
    ///   RSA key of 2048 to 8192 bits with an odd exponent that fits in 64 bits.
    static func rsaPublicKey(modulus: [UInt8], exponent: [UInt8]) throws(JWTError) -> EVPKey {
        let n = Array(modulus.drop { $0 == 0 })
        let e = Array(exponent.drop { $0 == 0 })
        guard n.count * 8 <= Int(maximumRSABits) else { throw .invalidKey("RSA modulus longer than \(maximumRSABits) bits") }
        guard !e.isEmpty, e.count <= 8, e[e.count - 1] & 1 == 1 else { throw .invalidKey("RSA exponent must be odd and at most 64 bits") }
        // SubjectPublicKeyInfo { rsaEncryption, NULL } { RSAPublicKey { n, e } }
        let algorithm = DER.sequence(DER.element(DER.objectIdentifierTag, rsaEncryptionOID), DER.element(DER.nullTag, []))
        let publicKey = DER.sequence(DER.unsignedInteger(n), DER.unsignedInteger(e))
        return try decodePublicKey(DER.sequence(algorithm, DER.bitString(publicKey)), kind: .rsa)
    }

    /// A P-256 public key from a JWK's `x` and `y` (32 bytes each).
    /// - Throws: ``JWTError/invalidKey(_:)`` when a coordinate is not 32
    ///   bytes or the point is not on the curve.
    static func p256PublicKey(x: [UInt8], y: [UInt8]) throws(JWTError) -> EVPKey {
        let size = ECDSASignatureFormat.p256ScalarSize
        guard x.count == size, y.count == size else { throw .invalidKey("P-256 coordinates must be \(size) bytes each") }
        // SubjectPublicKeyInfo { id-ecPublicKey, prime256v1 } { 04 || x || y }
        let algorithm = DER.sequence(DER.element(DER.objectIdentifierTag, ecPublicKeyOID), DER.element(DER.objectIdentifierTag, prime256v1OID))
        return try decodePublicKey(DER.sequence(algorithm, DER.bitString([0x04] + x + y)), kind: .p256)
    }

    /// 1.2.840.113549.1.1.1
    private static let rsaEncryptionOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
    /// 1.2.840.10045.2.1
    private static let ecPublicKeyOID: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
    /// 1.2.840.10045.3.1.7
    private static let prime256v1OID: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]

    /// Parses a DER SubjectPublicKeyInfo with OpenSSL (which refuses a P-256
    /// point that is not on the curve) and runs OpenSSL's public-key check.
    private static func decodePublicKey(_ der: [UInt8], kind: Kind) throws(JWTError) -> EVPKey {
        let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let decoded = d2i_PUBKEY(nil, &cursor, buffer.count)
            // Trailing bytes would mean the structure was not what was built.
            guard let decoded, cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                EVP_PKEY_free(decoded)
                return nil
            }
            return decoded
        }
        defer { ERR_clear_error() }
        guard let key else { throw .invalidKey(kind == .rsa ? "RSA key does not parse" : "P-256 point is not on the curve") }
        let wrapped = EVPKey(pointer: key, kind: kind)
        try wrapped.check("public key")
        guard wrapped.passesPublicKeyCheck() else { throw .invalidKey("public key fails OpenSSL's key check") }
        return wrapped
    }

    private func passesPublicKeyCheck() -> Bool {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else { return false }
        defer { EVP_PKEY_CTX_free(context) }
        return EVP_PKEY_public_check(context) == 1
    }

    /// Refuses a key of another type than ``kind``, an RSA key outside the
    /// size bounds, or an EC key on another curve.
    private func check(_ what: String) throws(JWTError) {
        switch kind {
        case .rsa:
            guard sf_evp_pkey_is_rsa(pointer) == 1 else { throw .invalidKey("\(what) is not RSA") }
            let bits = sf_evp_pkey_bits(pointer)
            guard bits >= Self.minimumRSABits else { throw .invalidKey("RSA \(what) shorter than \(Self.minimumRSABits) bits") }
            guard bits <= Self.maximumRSABits else { throw .invalidKey("RSA \(what) longer than \(Self.maximumRSABits) bits") }
        case .p256:
            guard sf_evp_pkey_is_ec(pointer) == 1 else { throw .invalidKey("\(what) is not an EC key") }
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_group_name(pointer, &name, name.count, &length) == 1,
                String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1"
            else {
                ERR_clear_error()
                throw .invalidKey("\(what) is not on the P-256 curve")
            }
        }
    }

    // MARK: - Generation and export

    /// A fresh key pair: RSA 2048 bits or P-256.
    /// - Throws: ``JWTError/signingFailed(_:)`` if OpenSSL cannot generate one.
    static func generate(_ kind: Kind) throws(JWTError) -> EVPKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, kind == .rsa ? "RSA" : "EC", nil) else { throw .signingFailed("no key context") }
        defer {
            EVP_PKEY_CTX_free(context)
            ERR_clear_error()
        }
        guard EVP_PKEY_keygen_init(context) == 1 else { throw .signingFailed("EVP_PKEY_keygen_init") }
        let configured =
            switch kind {
            case .rsa: EVP_PKEY_CTX_set_rsa_keygen_bits(context, Self.minimumRSABits)
            case .p256: EVP_PKEY_CTX_set_group_name(context, "P-256")
            }
        guard configured == 1 else { throw .signingFailed("key generation parameters") }
        var key: OpaquePointer?
        guard EVP_PKEY_generate(context, &key) == 1, let key else { throw .signingFailed("EVP_PKEY_generate") }
        return EVPKey(pointer: key, kind: kind)
    }

    /// The public components a JWK carries: `n` and `e` for RSA, `x` and `y`
    /// (32 bytes each) for P-256, big-endian.
    func publicComponents() throws(JWTError) -> (first: [UInt8], second: [UInt8]) {
        switch kind {
        case .rsa: (try bigNumber("n", width: nil), try bigNumber("e", width: nil))
        case .p256: (try bigNumber("qx", width: 32), try bigNumber("qy", width: 32))
        }
    }

    /// The public half as a `-----BEGIN PUBLIC KEY-----` PEM (a
    /// SubjectPublicKeyInfo), e.g. to hand a generated key's public half to
    /// whoever verifies.
    func publicKeyPEM() throws(JWTError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw .signingFailed("out of memory") }
        defer {
            BIO_free(bio)
            ERR_clear_error()
        }
        guard PEM_write_bio_PUBKEY(bio, pointer) == 1 else { throw .signingFailed("PEM_write_bio_PUBKEY") }
        var bytes = [UInt8](repeating: 0, count: Int(BIO_ctrl_pending(bio)))
        let count = bytes.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32($0.count)) }
        guard count == bytes.count else { throw .signingFailed("BIO_read") }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func bigNumber(_ name: String, width: Int?) throws(JWTError) -> [UInt8] {
        var number: OpaquePointer?
        defer {
            BN_free(number)
            ERR_clear_error()
        }
        guard EVP_PKEY_get_bn_param(pointer, name, &number) == 1, let number else { throw .signingFailed("cannot read key parameter \(name)") }
        let size = width ?? Int(sf_bn_num_bytes(number))
        var bytes = [UInt8](repeating: 0, count: size)
        guard BN_bn2binpad(number, &bytes, Int32(size)) == Int32(size) else { throw .signingFailed("key parameter \(name) too large") }
        return bytes
    }

    // MARK: - Signatures

    /// Checks a JWS signature made with this key: RSASSA-PKCS1-v1_5 with
    /// SHA-256 (`RS256`), or ECDSA P-256 with SHA-256 (`ES256`, whose 64-byte
    /// `R || S` is turned into DER for OpenSSL first).
    func verifySHA256(signature: [UInt8], message: [UInt8]) -> Bool {
        let encoded: [UInt8]
        switch kind {
        case .rsa:
            encoded = signature
        case .p256:
            guard let der = ECDSASignatureFormat.der(fromRaw: signature) else { return false }
            encoded = der
        }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer {
            EVP_MD_CTX_free(context)
            ERR_clear_error()
        }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pointer) == 1 else { return false }
        return withStableBytes(encoded) { signaturePointer, signatureCount in
            withStableBytes(message) { messagePointer, messageCount in
                EVP_DigestVerify(context, signaturePointer, signatureCount, messagePointer, messageCount) == 1
            }
        }
    }

    /// Signs as ``verifySHA256(signature:message:)`` checks: RS256, or ES256
    /// returned in the JWS `R || S` form.
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
        let output = Array(signature.prefix(length))
        guard kind == .p256 else { return output }
        guard let raw = ECDSASignatureFormat.raw(fromDER: output) else { throw .signingFailed("unexpected ECDSA signature encoding") }
        return raw
    }
}
