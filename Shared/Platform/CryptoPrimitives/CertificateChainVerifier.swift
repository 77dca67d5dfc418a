internal import CCrypto
import Foundation

/// Verifies X.509 chains to a fixed set of trusted roots with OpenSSL's
/// `X509_verify_cert` (signatures, validity at a given time, CA constraints),
/// then the shape a caller requires: a chain length and extensions per position.
///
/// Only the roots given are trusted: no system store, no partial chains
/// (an intermediate is never a trust anchor). Revocation (OCSP) is not checked.
public struct CertificateChainVerifier: Sendable {
    /// The trust anchors, self-signed roots.
    public let trustedRoots: [X509Certificate]

    /// - Parameter trustedRoots: at least one root certificate.
    public init(trustedRoots: [X509Certificate]) {
        self.trustedRoots = trustedRoots
    }

    /// What a verification requires beyond OpenSSL's checks.
    public struct Requirements: Sendable {
        /// The verified chain's length, leaf and root included (nil: any).
        public var chainLength: Int?
        /// OIDs each position must carry: index 0 is the leaf, 1 its issuer.
        public var extensions: [Int: [String]]

        public init(chainLength: Int? = nil, extensions: [Int: [String]] = [:]) {
            self.chainLength = chainLength
            self.extensions = extensions
        }
    }

    /// Verifies `leaf` through `intermediates` to one of ``trustedRoots``, as of `time`.
    /// - Parameters:
    ///   - leaf: the end-entity certificate.
    ///   - intermediates: untrusted certificates OpenSSL may use to build the chain.
    ///   - time: the instant every certificate on the chain must be valid at.
    ///   - requirements: chain length and extensions per position.
    /// - Returns: the leaf's P-256 public key, as a key that checks ES256 signatures.
    /// - Throws: ``X509Error``: `untrusted` (no chain, a bad signature, expired or
    ///   not yet valid at `time`, a non-CA issuer), `unexpectedChainLength`,
    ///   `missingExtension`, `unsupportedKey`.
    public func verify(
        leaf: X509Certificate, intermediates: [X509Certificate], at time: Date, requirements: Requirements = Requirements()
    ) throws(X509Error) -> JWTVerificationKey {
        guard !trustedRoots.isEmpty else { throw .untrusted("no trusted root configured") }
        try verifyChain(leaf: leaf, intermediates: intermediates, at: time, requirements: requirements)
        return JWTVerificationKey(material: .publicKey(try leaf.p256PublicKey()), algorithm: .es256)
    }

    /// Builds and verifies the chain, then checks `requirements` on the chain
    /// OpenSSL built, not on the order the sender listed: an `x5c` may carry
    /// extra certificates, and only the verified path says which one issued the leaf.
    private func verifyChain(
        leaf: X509Certificate, intermediates: [X509Certificate], at time: Date, requirements: Requirements
    ) throws(X509Error) {
        guard let store = X509_STORE_new() else { throw .untrusted("out of memory") }
        defer { X509_STORE_free(store) }
        for root in trustedRoots where X509_STORE_add_cert(store, root.pointer) != 1 {
            ERR_clear_error()
            throw .untrusted("cannot add a trusted root")
        }
        guard let untrusted = sf_x509_stack_new() else { throw .untrusted("out of memory") }
        defer { sf_x509_stack_free(untrusted) }
        for certificate in intermediates where sf_x509_stack_push(untrusted, certificate.pointer) <= 0 {
            throw .untrusted("out of memory")
        }
        guard let context = X509_STORE_CTX_new() else { throw .untrusted("out of memory") }
        defer {
            X509_STORE_CTX_free(context)
            ERR_clear_error()
        }
        guard X509_STORE_CTX_init(context, store, leaf.pointer, untrusted) == 1 else { throw .untrusted("cannot start verification") }
        // Clamped: a time_t conversion of an out-of-range Double would trap.
        let seconds = min(max(time.timeIntervalSince1970.rounded(.down), 0), 253_402_300_799) // 9999-12-31T23:59:59Z
        X509_STORE_CTX_set_time(context, 0, time_t(seconds))
        guard X509_verify_cert(context) == 1 else {
            let code = X509_STORE_CTX_get_error(context)
            throw .untrusted(String(cString: X509_verify_cert_error_string(Int(code))))
        }
        guard let chain = X509_STORE_CTX_get0_chain(context) else { throw .untrusted("no chain built") }
        let length = Int(sf_x509_stack_count(chain))
        if let expected = requirements.chainLength, expected != length {
            throw .unexpectedChainLength(expected: expected, actual: length)
        }
        for (position, oids) in requirements.extensions.sorted(by: { $0.key < $1.key }) {
            guard position < length, let certificate = sf_x509_stack_value(chain, Int32(position)) else {
                throw .unexpectedChainLength(expected: position + 1, actual: length)
            }
            for oid in oids where !X509Certificate.hasExtension(certificate, oid: oid) { throw .missingExtension(oid) }
        }
    }
}
