import Foundation

/// Checks ``RecordSignature``s with one or more P-256 public keys, chosen by
/// the id each signature names: the current key and, during a rotation, the
/// previous one. Holds no private key, so whoever holds it cannot sign.
public struct RecordVerifier: Sendable {
    private let keys: [String: EVPKey]

    /// The ids (thumbprints) of the configured keys, sorted.
    public var keyIDs: [String] { keys.keys.sorted() }

    /// A verifier with every key of a PEM bundle: one or more
    /// `-----BEGIN PUBLIC KEY-----` blocks, nothing else but whitespace.
    /// - Throws: ``CryptoError/invalidKey(_:)`` when the bundle holds no
    ///   block, text outside the blocks, or a block that is not a P-256 public key.
    public init(publicKeysPEM bundle: String) throws(CryptoError) {
        let begin = "-----BEGIN PUBLIC KEY-----", end = "-----END PUBLIC KEY-----"
        var keys: [String: EVPKey] = [:]
        var rest = Substring(bundle)
        while let start = rest.range(of: begin) {
            guard rest[..<start.lowerBound].allSatisfy(\.isWhitespace) else { throw .invalidKey("text outside the PEM blocks") }
            guard let stop = rest[start.upperBound...].range(of: end) else { throw .invalidKey("a PEM block without its END line") }
            do {
                let key = try EVPKey.p256PublicKey(pem: String(rest[start.lowerBound..<stop.upperBound]) + "\n")
                keys[try RecordSignature.keyID(of: key)] = key
            } catch {
                throw CryptoError(error)
            }
            rest = rest[stop.upperBound...]
        }
        guard rest.allSatisfy(\.isWhitespace) else { throw .invalidKey("text outside the PEM blocks") }
        guard !keys.isEmpty else { throw .invalidKey("no public key in PEM") }
        self.keys = keys
    }

    /// Whether `signature` (the text form) is a configured key's signature
    /// over exactly `fields`. The id and signature are public values, so
    /// nothing here needs a constant-time comparison; OpenSSL's ECDSA verify
    /// decides.
    public func check(_ signature: String, over fields: [[UInt8]]) -> RecordSignature.Check {
        let parts = signature.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let raw = Base64URL.decode(parts[1]), raw.count == 2 * ECDSASignatureFormat.p256ScalarSize else {
            return .malformed
        }
        let keyID = String(parts[0])
        guard let key = keys[keyID] else { return .unknownKey }
        return key.verifySHA256(signature: raw, message: RecordSignature.signedBytes(fields)) ? .valid(keyID: keyID) : .invalid
    }
}
