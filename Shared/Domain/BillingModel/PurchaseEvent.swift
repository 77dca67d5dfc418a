import Foundation

/// Something that happened to one purchase that the seller's backend should
/// hear of: the value of a `storefront.purchase-events.v1` record (key: the
/// purchase, ``key``) and the body of every webhook sent out for it.
///
/// The checkout writes it; the webhook-sender sends it, byte for byte, to
/// every endpoint that wants its ``type``, with `webhook-id` = ``id``. The
/// topic is at-least-once: consumers and receivers dedupe by ``id``.
///
/// The contract is fixed (web-first contract, "Outgoing event";
/// docs/webhooks-out.md); only fields and types may be added. Keys are
/// snake_case, timestamps ``Timestamp`` strings, `ref` an explicit `null`
/// when there is none:
///
/// ```json
/// {"email":"buyer@example.com","expires_at":"2026-12-02T04:21:50.123Z","id":"<uuid>",
///  "occurred_at":"2026-12-02T03:21:50.123Z","purchase":{"id":"1","provider":"lemonsqueezy","type":"subscription"},
///  "redemption_url":"https://shop.example.com/redeem/<token>","ref":null,"type":"purchase.redemption_issued"}
/// ```
///
/// ``redemptionURL`` is a bearer secret (whoever holds it can claim the
/// purchase until it expires): ``description``, ``debugDescription`` and the
/// mirror leave it, and the buyer's email, out, so interpolating an event
/// into a log line cannot leak them.
public struct PurchaseEvent: Codable, Sendable, Hashable {
    /// What happened. Open: a type this build does not know decodes as
    /// ``unknown(_:)`` with its name and encodes back unchanged, so a
    /// consumer built before a new type can still read (and forward) it.
    public enum Kind: Sendable, Hashable, Codable, RawRepresentable, CustomStringConvertible {
        /// A redemption link was made for a purchase nobody owns yet (after
        /// the checkout, or on `POST /api/redeem/resend`): the seller sends
        /// ``PurchaseEvent/redemptionURL`` to ``PurchaseEvent/email``. Each
        /// link is a new event (``PurchaseEvent/id`` is the redemption's id).
        case redemptionIssued
        /// A type this build does not know, by its name.
        case unknown(String)

        /// The types this build knows.
        public static let known: [Kind] = [.redemptionIssued]

        public init(rawValue: String) {
            self = Self.known.first { $0.rawValue == rawValue } ?? .unknown(rawValue)
        }

        public var rawValue: String {
            switch self {
            case .redemptionIssued: "purchase.redemption_issued"
            case .unknown(let name): name
            }
        }

        public var description: String { rawValue }

        public init(from decoder: any Decoder) throws { self.init(rawValue: try decoder.singleValueContainer().decode(String.self)) }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }

    /// The purchase the event is about, as `POST /api/redeem` names it.
    public struct Purchase: Codable, Sendable, Hashable {
        public var provider: Provider
        public var type: PurchaseType
        /// The provider's subscription or order id.
        public var id: String

        public init(provider: Provider, type: PurchaseType, id: String) {
            self.provider = provider
            self.type = type
            self.id = id
        }

        /// `<provider>:<type>:<id>` (``TopicKey/purchase(_:type:id:)``).
        public var key: String { TopicKey.purchase(provider, type: type, id: id) }
    }

    /// Unique per event and stable (for ``Kind/redemptionIssued``, the
    /// redemption's UUID): the webhook's `webhook-id`, the dedup key.
    public var id: String
    public var type: Kind
    /// When it happened (RFC 3339, UTC).
    public var occurredAt: Date
    public var purchase: Purchase
    /// The buyer's email (who the link is for). Set for ``Kind/redemptionIssued``.
    public var email: String?
    /// `PUBLIC_URL/redeem/<token>`: a secret until it expires. Set for ``Kind/redemptionIssued``.
    public var redemptionURL: String?
    /// When ``redemptionURL`` stops working. Set for ``Kind/redemptionIssued``.
    public var expiresAt: Date?
    /// The campaign tag the checkout carried (`ref`), or nil; written as `null`.
    public var ref: String?

    /// Any event; ``redemptionIssued(id:occurredAt:purchase:email:redemptionURL:expiresAt:ref:)``
    /// is the checked way to make that type.
    public init(
        id: String, type: Kind, occurredAt: Date, purchase: Purchase, email: String? = nil, redemptionURL: String? = nil, expiresAt: Date? = nil,
        ref: String? = nil
    ) {
        self.id = id
        self.type = type
        self.occurredAt = occurredAt
        self.purchase = purchase
        self.email = email
        self.redemptionURL = redemptionURL
        self.expiresAt = expiresAt
        self.ref = ref
    }

    /// A `purchase.redemption_issued` event: every field its type requires.
    /// - Parameters:
    ///   - id: the redemption's id (a UUID): one event per link.
    ///   - redemptionURL: `PUBLIC_URL/redeem/<token>`.
    ///   - expiresAt: when the token expires.
    ///   - ref: the checkout's campaign tag, if any.
    public static func redemptionIssued(
        id: String, occurredAt: Date, purchase: Purchase, email: String, redemptionURL: String, expiresAt: Date, ref: String?
    ) -> PurchaseEvent {
        PurchaseEvent(
            id: id, type: .redemptionIssued, occurredAt: occurredAt, purchase: purchase, email: email, redemptionURL: redemptionURL,
            expiresAt: expiresAt, ref: ref)
    }

    /// The record key: the purchase's, so one purchase's events keep their order.
    public var key: String { purchase.key }

    enum CodingKeys: String, CodingKey {
        case id, type, purchase, email, ref
        case occurredAt = "occurred_at", redemptionURL = "redemption_url", expiresAt = "expires_at"
    }

    /// The fields a known type cannot do without.
    private var missingFields: [CodingKeys] {
        guard type == .redemptionIssued else { return [] }
        var missing: [CodingKeys] = []
        if email == nil { missing.append(.email) }
        if redemptionURL == nil { missing.append(.redemptionURL) }
        if expiresAt == nil { missing.append(.expiresAt) }
        return missing
    }

    /// - Throws: `DecodingError` for a missing or malformed field, or a known
    ///   type without a field it requires; an unknown type needs only `id`,
    ///   `type`, `occurred_at` and `purchase`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        type = try c.decode(Kind.self, forKey: .type)
        occurredAt = try c.decodeRequiredTimestamp(forKey: .occurredAt)
        purchase = try c.decode(Purchase.self, forKey: .purchase)
        email = try c.decodeIfPresent(String.self, forKey: .email)
        redemptionURL = try c.decodeIfPresent(String.self, forKey: .redemptionURL)
        expiresAt = try c.decodeTimestamp(forKey: .expiresAt)
        ref = try c.decodeIfPresent(String.self, forKey: .ref)
        if let missing = missingFields.first {
            throw DecodingError.keyNotFound(
                missing, .init(codingPath: c.codingPath, debugDescription: "\(type.rawValue) requires \(missing.stringValue)"))
        }
    }

    /// - Throws: `EncodingError` for a known type without a field it requires.
    public func encode(to encoder: any Encoder) throws {
        if let missing = missingFields.first {
            throw EncodingError.invalidValue(
                self, .init(codingPath: encoder.codingPath + [missing], debugDescription: "\(type.rawValue) requires \(missing.stringValue)"))
        }
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(type, forKey: .type)
        try c.encodeTimestamp(occurredAt, forKey: .occurredAt)
        try c.encode(purchase, forKey: .purchase)
        try c.encodeIfPresent(email, forKey: .email)
        try c.encodeIfPresent(redemptionURL, forKey: .redemptionURL)
        if let expiresAt { try c.encodeTimestamp(expiresAt, forKey: .expiresAt) }
        // Always present: the contract spells "no campaign" as null.
        if let ref { try c.encode(ref, forKey: .ref) } else { try c.encodeNil(forKey: .ref) }
    }
}

// MARK: - Kept out of logs

extension PurchaseEvent: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The event without its secret and personal fields: `redemption_url` and `email` read `<redacted>`.
    public var description: String {
        "PurchaseEvent(id: \(id), type: \(type.rawValue), purchase: \(key), occurred_at: \(Timestamp.format(occurredAt)), "
            + "email: \(email == nil ? "nil" : "<redacted>"), redemption_url: \(redemptionURL == nil ? "nil" : "<redacted>"))"
    }

    public var debugDescription: String { description }

    /// What `dump` and the default reflection show: the same redactions.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "id": id, "type": type.rawValue, "occurredAt": occurredAt, "purchase": purchase, "email": email == nil ? "nil" : "<redacted>",
                "redemptionURL": redemptionURL == nil ? "nil" : "<redacted>", "expiresAt": expiresAt as Any, "ref": ref as Any,
            ], displayStyle: .struct)
    }
}
