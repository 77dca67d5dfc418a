/// The format of Storefront's detached record signatures: ES256 (ECDSA on
/// P-256 with SHA-256) over a record's fields, named by the signing key's id.
///
/// Text form (a Kafka header value, 130 bytes): `<kid>.<signature>`, where
/// `kid` is the key's RFC 7638 JWK thumbprint (base64url of the SHA-256 of
/// `{"crv":"P-256","kty":"EC","x":"…","y":"…"}`, 43 characters) and
/// `signature` the 64-byte `R || S` in base64url without padding
/// (86 characters). A thumbprint needs no configuration and cannot name two
/// keys, so verifiers holding several public keys (a rotation) find the one
/// by its id; the id only chooses the key, the signature is what is trusted.
///
/// Signed bytes: ``context`` (ASCII, then a zero byte), then each field as its
/// length (4 bytes, big-endian) and its bytes. The lengths make the split
/// between fields unambiguous (a topic cannot borrow bytes of the key), and
/// the context keeps these signatures apart from any other use of a key.
public enum RecordSignature {
    /// The domain-separation prefix of the signed bytes, version 1.
    public static let context = "storefront-record-signature-v1"

    /// What ``RecordVerifier/check(_:over:)`` found.
    public enum Check: Sendable, Equatable {
        /// Signed by the key with this id, over exactly these fields.
        case valid(keyID: String)
        /// Not `<kid>.<signature>` with a 64-byte signature in base64url.
        case malformed
        /// No configured public key has this id.
        case unknownKey
        /// The key is known and the signature is not its signature over these fields.
        case invalid
    }

    /// The bytes a signature covers: see the type's description.
    static func signedBytes(_ fields: [[UInt8]]) -> [UInt8] {
        var bytes = Array(context.utf8)
        bytes.append(0)
        for field in fields {
            let count = UInt32(clamping: field.count)
            bytes += [UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
            bytes += field
        }
        return bytes
    }

    /// The RFC 7638 thumbprint of a P-256 key: the id signatures carry.
    static func keyID(of key: EVPKey) throws(JWTError) -> String {
        let point = try key.publicComponents()
        // RFC 7638 §3.2: the required members only, in lexicographic order, no whitespace.
        let canonical =
            #"{"crv":"P-256","kty":"EC","x":""# + Base64URL.encode(point.first) + #"","y":""#
            + Base64URL.encode(point.second) + #""}"#
        return Base64URL.encode(SHA256.hash(Array(canonical.utf8)))
    }
}
