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
///
/// The key rotates: proofs come back in webhooks for as long as a
/// subscription renews, so the keys it replaced stay in
/// `OWNERSHIP_PROOF_PREVIOUS_KEYS` and still verify. A key with an id
/// (`OWNERSHIP_PROOF_KEY_ID`) makes proofs `<id>.<hex>`, checked under that
/// key only; a proof without an id is checked under every key (the form
/// made before ids existed, and under a key without one).
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
        case badKeyID(String)
        case duplicateKeyID(String)

        public var description: String {
            switch self {
            case .tooShort(let bytes):
                "must be at least \(OwnershipProof.minimumKeyBytes) bytes (it has \(bytes)); generate one with: openssl rand -hex 32"
            case .badKeyID(let id):
                "key id \"\(id)\" must be 1 to 16 lowercase letters, digits or dashes"
            case .duplicateKeyID(let id):
                "key id \"\(id)\" names two keys"
            }
        }
    }

    /// One key of the ring: its secret and the id its proofs name.
    public struct Key: Sendable {
        public let id: String?
        let secret: Secret

        /// - Throws: ``KeyError/tooShort(bytes:)`` for a secret under
        ///   ``minimumKeyBytes`` bytes of UTF-8, ``KeyError/badKeyID(_:)``.
        public init(id: String? = nil, secret: Secret) throws(KeyError) {
            guard secret.bytes.count >= OwnershipProof.minimumKeyBytes else { throw .tooShort(bytes: secret.bytes.count) }
            if let id, !Self.isValidID(id) { throw .badKeyID(id) }
            self.id = id
            self.secret = secret
        }

        static func isValidID(_ id: String) -> Bool {
            (1...16).contains(id.utf8.count)
                && id.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
        }
    }

    /// The current key first, then the ones it replaced; empty only in the
    /// placeholder ``configured(key:reader:)`` returns after a problem.
    private let keys: [Key]

    /// - Throws: ``KeyError/tooShort(bytes:)`` for a key under ``minimumKeyBytes`` bytes of UTF-8.
    public init(key: Secret) throws(KeyError) {
        try self.init(current: Key(secret: key))
    }

    /// A ring: proofs are made under `current`, and verify under it or any of `previous`.
    /// - Throws: ``KeyError/duplicateKeyID(_:)`` when two keys share an id.
    public init(current: Key, previous: [Key] = []) throws(KeyError) {
        var seen: Set<String> = []
        for id in ([current] + previous).compactMap(\.id) where !seen.insert(id).inserted { throw .duplicateKeyID(id) }
        keys = [current] + previous
    }

    /// The placeholder: makes no proof (``proof(checkoutID:appUserID:)`` is
    /// empty) and accepts none.
    init() {
        keys = []
    }

    /// The proof for `appUserID` owning checkout `checkoutID`: 64 lowercase
    /// hex digits, after `<key id>.` when the current key has an id.
    public func proof(checkoutID: String, appUserID: String) -> String {
        guard let current = keys.first else { return "" }
        return Self.label(current) + Hex.encode(Self.mac(current, checkoutID: checkoutID, appUserID: appUserID))
    }

    /// The proof that Storefront made checkout `checkoutID` for nobody yet (a
    /// web-first buyer without an account): 64 lowercase hex digits under the
    /// same key, over ``anonymousDomainTag`` and the checkout id, so it can
    /// never pass for a user's proof (nor the reverse). It proves the checkout
    /// id only; the purchase gets an owner when its redemption token is redeemed.
    public func proof(anonymousCheckoutID checkoutID: String) -> String {
        guard let current = keys.first else { return "" }
        return Self.label(current) + Hex.encode(Self.anonymousMAC(current, checkoutID: checkoutID))
    }

    /// Whether `proof` is ``proof(anonymousCheckoutID:)`` for exactly this checkout (constant time).
    public func verify(_ proof: String, anonymousCheckoutID checkoutID: String) -> Bool {
        guard !checkoutID.isEmpty else { return false }
        return matches(proof) { Self.anonymousMAC($0, checkoutID: checkoutID) }
    }

    /// A secret for another use of the same key (anonymous users' tokens,
    /// redemption tokens): HMAC-SHA256 of `purpose` under the key, so a value
    /// made for one purpose never verifies for another and the key itself is
    /// never used twice. nil for the placeholder.
    public func derivedSecret(purpose: String) -> [UInt8]? {
        keys.first.map { Self.derive($0, purpose: purpose) }
    }

    /// ``derivedSecret(purpose:)`` under every key of the ring, the current
    /// one first: what a value made before a rotation is checked against.
    public func derivedSecrets(purpose: String) -> [[UInt8]] {
        keys.map { Self.derive($0, purpose: purpose) }
    }

    private static func derive(_ key: Key, purpose: String) -> [UInt8] {
        HMAC.sha256(key: key.secret.bytes, message: message(fields: ["storefront.derived-secret.v1", purpose]))
    }

    /// Whether `proof` is the proof for exactly this pair. The comparison runs
    /// in constant time; a proof that is empty, not 64 hex digits, or made
    /// for any other pair or under any other key is refused, and so are empty
    /// ids (Storefront never makes a checkout without both).
    public func verify(_ proof: String, checkoutID: String, appUserID: String) -> Bool {
        guard !checkoutID.isEmpty, !appUserID.isEmpty else { return false }
        return matches(proof) { Self.mac($0, checkoutID: checkoutID, appUserID: appUserID) }
    }

    /// Whether `proof` is `expected` under the key it names, or, naming
    /// none, under any key. Every candidate is compared in constant time.
    private func matches(_ proof: String, _ expected: (Key) -> [UInt8]) -> Bool {
        let (id, digits) = Self.split(proof)
        guard digits.utf8.count == Self.proofLength, let given = Hex.decode(String(digits)) else { return false }
        var found = false
        for key in keys where id == nil || key.id == id {
            found = constantTimeEquals(expected(key), given) || found
        }
        return found
    }

    /// `<id>.<hex>` into its parts; a proof without a dot has no id.
    private static func split(_ proof: String) -> (id: String?, digits: Substring) {
        guard let dot = proof.firstIndex(of: ".") else { return (nil, Substring(proof)) }
        return (String(proof[..<dot]), proof[proof.index(after: dot)...])
    }

    private static func label(_ key: Key) -> String { key.id.map { "\($0)." } ?? "" }

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

    private static func mac(_ key: Key, checkoutID: String, appUserID: String) -> [UInt8] {
        HMAC.sha256(key: key.secret.bytes, message: message(checkoutID: checkoutID, appUserID: appUserID))
    }

    private static func anonymousMAC(_ key: Key, checkoutID: String) -> [UInt8] {
        HMAC.sha256(key: key.secret.bytes, message: message(fields: [anonymousDomainTag, checkoutID]))
    }

    public var description: String { "OwnershipProof(keys: \(keys.count) <redacted>)" }
}
