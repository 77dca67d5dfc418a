import Foundation

/// One change of one app user's entitlements: the value of a
/// `storefront.entitlements.v1` record (key: the app user id, UTF-8) and the
/// body of every webhook sent out for it.
///
/// The subscription-projector writes it through a transactional outbox in the
/// same transaction as the rows that changed, so no change is announced that
/// did not commit and none is lost. The topic is at-least-once (a relay that
/// dies between the broker's acknowledgement and marking the row published
/// sends it again): consumers dedupe by ``id``, which makes the feed
/// exactly-once in effect. Records of one user keep their order (one key, one
/// partition).
///
/// The contract is fixed (docs/architecture.md, "Kafka topics"); only fields
/// may be added. Keys are snake_case; `cause.provider` is an explicit `null`
/// when no provider caused the change.
public struct EntitlementChange: Codable, Sendable, Hashable {
    /// What happened to the user's access. One change may touch several
    /// entitlements; the type names the one that matters most (the order of
    /// the cases, from ``transferred`` down to ``renewed``).
    public enum Kind: String, Codable, Sendable, Hashable, CaseIterable {
        /// A purchase moved between app users by a claim or stronger ownership
        /// evidence: the old owner lost what it granted, the new one gained it.
        case transferred = "entitlement.transferred"
        /// Access ended because money was given back (a refund, a lost dispute).
        case refunded = "entitlement.refunded"
        /// Access ended otherwise (expired, cancelled and run out, unpaid).
        case revoked = "entitlement.revoked"
        /// Access began (a purchase, a reactivation).
        case granted = "entitlement.granted"
        /// Still active, but a payment failed or a dispute was opened.
        case billingIssue = "entitlement.billing_issue"
        /// Still active, but it will not renew: access ends at `expires_at`.
        case expiring = "entitlement.expiring"
        /// Still active with new terms: a renewal (a later `expires_at`), a
        /// renewal switched back on, a billing issue resolved.
        case renewed = "entitlement.renewed"
    }

    /// What made the change.
    public struct Cause: Codable, Sendable, Hashable {
        public enum Kind: String, Codable, Sendable, Hashable {
            /// A provider's webhook (``reference`` is its dedup key).
            case providerEvent = "provider_event"
            /// A Storefront command (cancel, resume; ``reference`` is the command id).
            case command
            /// A claim of an unowned purchase by verified email (``reference`` is the command id).
            case claim
            /// A reconciler snapshot of the provider's object (``reference`` is its dedup key).
            case snapshot
            /// A promotional grant given through the server API (``reference`` is the grant id).
            case grant
            /// A promotional grant revoked through the server API (``reference`` is the grant id).
            case revoke
            /// The subscription moved to another plan of its product group
            /// (docs/plan-changes.md): named so whether the plan-change command
            /// or the provider's webhook about it came first (``reference`` is that record's).
            case planChange = "plan_change"
        }

        public var kind: Kind
        /// The provider of the event or purchase; nil when none applies.
        public var provider: Provider?
        /// The provider event's dedup key, the command id, or the snapshot's dedup key.
        public var reference: String

        public init(kind: Kind, provider: Provider?, reference: String) {
            self.kind = kind
            self.provider = provider
            self.reference = reference
        }

        enum CodingKeys: String, CodingKey { case kind, provider, reference }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            kind = try c.decode(Kind.self, forKey: .kind)
            provider = try c.decodeIfPresent(Provider.self, forKey: .provider)
            reference = try c.decode(String.self, forKey: .reference)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(kind, forKey: .kind)
            // Always present: the contract spells "no provider" as null.
            if let provider { try c.encode(provider, forKey: .provider) } else { try c.encodeNil(forKey: .provider) }
            try c.encode(reference, forKey: .reference)
        }
    }

    /// Stable and unique per change: consumers and webhook receivers dedupe by it.
    public var id: String
    public var type: Kind
    public var appUserID: String
    /// When the projector committed the change (RFC 3339, UTC).
    public var occurredAt: Date
    public var cause: Cause
    /// The user's entitlements as `GET /api/entitlements` answered before the change.
    public var before: EntitlementsResponse
    /// The same after the change.
    public var after: EntitlementsResponse

    public init(
        id: String, type: Kind, appUserID: String, occurredAt: Date, cause: Cause, before: EntitlementsResponse, after: EntitlementsResponse
    ) {
        self.id = id
        self.type = type
        self.appUserID = appUserID
        self.occurredAt = occurredAt
        self.cause = cause
        self.before = before
        self.after = after
    }

    enum CodingKeys: String, CodingKey {
        case id, type, cause, before, after
        case appUserID = "app_user_id", occurredAt = "occurred_at"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        type = try c.decode(Kind.self, forKey: .type)
        appUserID = try c.decode(String.self, forKey: .appUserID)
        guard let occurredAt = try c.decodeTimestamp(forKey: .occurredAt) else {
            throw DecodingError.valueNotFound(
                Date.self, .init(codingPath: c.codingPath + [CodingKeys.occurredAt], debugDescription: "occurred_at is null"))
        }
        self.occurredAt = occurredAt
        cause = try c.decode(Cause.self, forKey: .cause)
        before = try c.decode(EntitlementsResponse.self, forKey: .before)
        after = try c.decode(EntitlementsResponse.self, forKey: .after)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(type, forKey: .type)
        try c.encode(appUserID, forKey: .appUserID)
        try c.encodeTimestamp(occurredAt, forKey: .occurredAt)
        try c.encode(cause, forKey: .cause)
        try c.encode(before, forKey: .before)
        try c.encode(after, forKey: .after)
    }

    /// The record key: the app user id's UTF-8 bytes, so one user's changes keep their order.
    public var key: String { appUserID }
}
