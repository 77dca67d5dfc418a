import ServiceSettings
import CryptoPrimitives
import BillingModel

/// Proof that Storefront itself made a checkout for an app user: a
/// server-keyed HMAC the checkout service puts next to the user and checkout
/// ids in the provider's custom data (``CustomDataKeys/proof``), and the
/// projector checks when the ids come back in a webhook or snapshot.
///
/// Custom data is not evidence on its own: Lemon Squeezy public buy links
/// take `checkout[custom][…]` from the query string, so anyone can name any
/// user and any checkout. Only a valid proof for exactly that (checkout id,
/// app user id) pair makes the claim count (docs/architecture.md, "Identity
/// and ownership").
///
/// The proof is the lowercase hex HMAC-SHA256, under `OWNERSHIP_PROOF_KEY`, of
/// ``message(checkoutID:appUserID:)``: a domain tag naming this use and its
/// version, then each field as a 4-byte big-endian length and its UTF-8 bytes,
/// so no two pairs encode alike (`("ab", "c")` and `("a", "bc")` differ) and a
/// later format (`v2`) can never verify as this one. The key never appears in
/// a description, a log or an error.
public struct OwnershipProof: Sendable, CustomStringConvertible {
    /// The variable the key is read from (or `OWNERSHIP_PROOF_KEY_FILE`).
    public static var keyVariable: String { Setting.ownershipProofKey.name }
    /// Shortest key accepted, in bytes: as long as the HMAC-SHA256 output.
    public static let minimumKeyBytes = 32
    /// The domain tag that starts every signed message (`v1`).
    public static let domainTag = "storefront.ownership-proof.v1"
    /// The domain tag of an anonymous checkout's proof.
    public static let anonymousDomainTag = "storefront.anonymous-checkout-proof.v1"
    /// Length of a proof: 32 bytes of HMAC-SHA256 in hex.
    public static let proofLength = 64

    /// Why a key cannot be used.
    public enum KeyError: Error, Equatable, CustomStringConvertible {
        case tooShort(bytes: Int)

        public var description: String {
            switch self {
            case .tooShort(let bytes):
                "must be at least \(OwnershipProof.minimumKeyBytes) bytes (it has \(bytes)); generate one with: openssl rand -hex 32"
            }
        }
    }

    /// nil only in the placeholder ``configured(key:reader:)`` returns after a problem.
    private let key: Secret?

    /// - Throws: ``KeyError/tooShort(bytes:)`` for a key under ``minimumKeyBytes`` bytes of UTF-8.
    public init(key: Secret) throws(KeyError) {
        guard key.bytes.count >= Self.minimumKeyBytes else { throw .tooShort(bytes: key.bytes.count) }
        self.key = key
    }

    /// The placeholder: makes no proof (``proof(checkoutID:appUserID:)`` is
    /// empty) and accepts none.
    private init() {
        key = nil
    }

    /// The proof for `appUserID` owning checkout `checkoutID`: 64 lowercase hex digits.
    public func proof(checkoutID: String, appUserID: String) -> String {
        mac(checkoutID: checkoutID, appUserID: appUserID).map(Hex.encode) ?? ""
    }

    /// The proof that Storefront made checkout `checkoutID` for nobody yet (a
    /// web-first buyer without an account): 64 lowercase hex digits under the
    /// same key, over ``anonymousDomainTag`` and the checkout id, so it can
    /// never pass for a user's proof (nor the reverse). It proves the checkout
    /// id only; the purchase gets an owner when its redemption token is redeemed.
    public func proof(anonymousCheckoutID checkoutID: String) -> String {
        anonymousMAC(checkoutID: checkoutID).map(Hex.encode) ?? ""
    }

    /// Whether `proof` is ``proof(anonymousCheckoutID:)`` for exactly this checkout (constant time).
    public func verify(_ proof: String, anonymousCheckoutID checkoutID: String) -> Bool {
        guard !checkoutID.isEmpty, proof.utf8.count == Self.proofLength, let given = Hex.decode(proof),
            let expected = anonymousMAC(checkoutID: checkoutID)
        else { return false }
        return constantTimeEquals(expected, given)
    }

    /// A secret for another use of the same key (anonymous users' tokens,
    /// redemption tokens): HMAC-SHA256 of `purpose` under the key, so a value
    /// made for one purpose never verifies for another and the key itself is
    /// never used twice. nil for the placeholder.
    public func derivedSecret(purpose: String) -> [UInt8]? {
        key.map { HMAC.sha256(key: $0.bytes, message: Self.message(fields: ["storefront.derived-secret.v1", purpose])) }
    }

    /// Whether `proof` is the proof for exactly this pair. The comparison runs
    /// in constant time; a proof that is empty, not 64 hex digits, or made
    /// for any other pair or under any other key is refused, and so are empty
    /// ids (Storefront never makes a checkout without both).
    public func verify(_ proof: String, checkoutID: String, appUserID: String) -> Bool {
        guard !checkoutID.isEmpty, !appUserID.isEmpty, proof.utf8.count == Self.proofLength, let given = Hex.decode(proof),
            let expected = mac(checkoutID: checkoutID, appUserID: appUserID)
        else { return false }
        return constantTimeEquals(expected, given)
    }

    /// The bytes the HMAC covers: ``domainTag``, then each field length-prefixed.
    static func message(checkoutID: String, appUserID: String) -> [UInt8] {
        message(fields: [Self.domainTag, checkoutID, appUserID])
    }

    /// Each field as a 4-byte big-endian length and its UTF-8 bytes.
    static func message(fields: [String]) -> [UInt8] {
        var message: [UInt8] = []
        for field in fields {
            let bytes = Array(field.utf8)
            let count = UInt32(truncatingIfNeeded: bytes.count)
            message += [UInt8(count >> 24 & 0xFF), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
            message += bytes
        }
        return message
    }

    private func mac(checkoutID: String, appUserID: String) -> [UInt8]? {
        key.map { HMAC.sha256(key: $0.bytes, message: Self.message(checkoutID: checkoutID, appUserID: appUserID)) }
    }

    private func anonymousMAC(checkoutID: String) -> [UInt8]? {
        key.map { HMAC.sha256(key: $0.bytes, message: Self.message(fields: [Self.anonymousDomainTag, checkoutID])) }
    }

    public var description: String { "OwnershipProof(key: <redacted>)" }

    /// The proof maker for a key a service read with
    /// `reader.required.secret(.ownershipProofKey)` (the variable, or the
    /// file named by `OWNERSHIP_PROOF_KEY_FILE`). The read itself stays in
    /// each service's configuration, spelled out, because
    /// `scripts/check_compose.py` learns which binaries require a variable
    /// from their source, and every binary links this module. Every service
    /// that makes or checks proofs (checkout, subscription-projector) must be
    /// given the same key.
    ///
    /// A key under ``minimumKeyBytes`` bytes is reported to `reader` as a
    /// problem of `OWNERSHIP_PROOF_KEY` (the key is never echoed); an empty
    /// one is not reported again (unset, or an unreadable file: the read did).
    /// - Returns: the proof maker; after a problem (the reader's `finish()`
    ///   then throws), a placeholder that makes no proof and accepts none.
    public static func configured(key: Secret, reader: inout ConfigReader) -> OwnershipProof {
        guard !key.isEmpty else { return OwnershipProof() }
        do {
            return try OwnershipProof(key: key)
        } catch {
            reader.report(keyVariable, error.description)
            return OwnershipProof()
        }
    }
}
