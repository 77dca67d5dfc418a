internal import CCrypto
import Foundation

/// One X.509 certificate, parsed by OpenSSL (an owned `X509`).
///
/// `@unchecked Sendable`: after parsing, the certificate is only read
/// (extension look-ups, key extraction, use in a verification context that
/// never modifies it), which OpenSSL 3 documents as safe from several threads.
public final class X509Certificate: @unchecked Sendable {
    let pointer: OpaquePointer

    /// The largest DER certificate accepted: real ones are 1-2 KB, and the
    /// bytes come from requests.
    public static let maximumDERSize = 16 * 1024

    private init(pointer: OpaquePointer) { self.pointer = pointer }

    deinit { X509_free(pointer) }

    /// Parses one DER certificate.
    /// - Throws: ``X509Error/malformed(_:)`` for bytes that are not exactly one certificate.
    public convenience init(der: [UInt8]) throws(X509Error) {
        guard !der.isEmpty, der.count <= Self.maximumDERSize else { throw .malformed("DER size \(der.count) out of range") }
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let certificate = d2i_X509(nil, &cursor, buffer.count)
            // Trailing bytes would let two readers see two different things.
            guard let certificate, cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                X509_free(certificate)
                return nil
            }
            return certificate
        }
        ERR_clear_error()
        guard let parsed else { throw .malformed("not a DER certificate") }
        self.init(pointer: parsed)
    }

    /// Parses a certificate from standard base64 DER (a JWS `x5c` entry, RFC 7515 §4.1.6).
    /// - Throws: ``X509Error/malformed(_:)``.
    public convenience init(base64DER: String) throws(X509Error) {
        guard base64DER.utf8.count <= Self.maximumDERSize * 2, let data = Data(base64Encoded: base64DER) else {
            throw .malformed("x5c entry is not base64")
        }
        try self.init(der: Array(data))
    }

    /// Every certificate in a PEM text (`-----BEGIN CERTIFICATE-----` blocks), in order.
    /// - Throws: ``X509Error/malformed(_:)`` when there is none or the text is too large.
    public static func certificates(pem: String) throws(X509Error) -> [X509Certificate] {
        guard pem.utf8.count <= 256 * 1024 else { throw .malformed("PEM text too large") }
        let bytes = Array(pem.utf8) + [UInt8(ascii: "\n")]
        let found: [X509Certificate] = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return [] }
            defer { BIO_free(bio) }
            var certificates: [X509Certificate] = []
            while let next = PEM_read_bio_X509(bio, nil, nil, nil) { certificates.append(X509Certificate(pointer: next)) }
            return certificates
        }
        // The loop ends on OpenSSL's "no start line" error.
        ERR_clear_error()
        guard !found.isEmpty else { throw .malformed("no PEM certificate found") }
        return found
    }

    /// Whether the certificate carries an extension with the dotted `oid`
    /// (critical or not; its value is not read).
    public func hasExtension(oid: String) -> Bool { Self.hasExtension(pointer, oid: oid) }

    /// ``hasExtension(oid:)`` of a certificate OpenSSL owns (one of a verified chain).
    static func hasExtension(_ certificate: OpaquePointer, oid: String) -> Bool {
        guard let object = OBJ_txt2obj(oid, 1) else {
            ERR_clear_error()
            return false
        }
        defer { ASN1_OBJECT_free(object) }
        return X509_get_ext_by_OBJ(certificate, object, -1) >= 0
    }

    /// The certificate's public key, which must be a P-256 key (ES256).
    /// - Throws: ``X509Error/unsupportedKey(_:)``.
    func p256PublicKey() throws(X509Error) -> EVPKey {
        guard let key = X509_get_pubkey(pointer) else {
            ERR_clear_error()
            throw .unsupportedKey("no public key")
        }
        do {
            return try EVPKey.p256(adopting: key)
        } catch {
            throw .unsupportedKey(error.description)
        }
    }
}
