import Foundation

/// One entitlement of the signed-in user: may they use `premium` right now,
/// until when, and why. Modelled on RevenueCat's `EntitlementInfo`; decoded
/// from `GET /api/entitlements` and the status answer's `entitlements`.
public struct EntitlementInfo: Codable, Hashable, Sendable, Identifiable {
    /// Where the access comes from: a subscription or a one-time purchase.
    public struct Source: RawRepresentable, Codable, Hashable, Sendable {
        /// The server's name for it.
        public let rawValue: String
        /// Wraps a name as the server sends it.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// A subscription (renewing, cancelled but still paid, on trial…).
        public static let subscription = Source(rawValue: "subscription")
        /// A one-time purchase.
        public static let purchase = Source(rawValue: "purchase")
        /// A promotional grant from support or the app's backend: no purchase,
        /// ``EntitlementInfo/store`` `promotional`, an end of its own.
        public static let grant = Source(rawValue: "grant")
    }

    /// Trial or paid period (RevenueCat's `periodType`).
    public struct PeriodType: RawRepresentable, Codable, Hashable, Sendable {
        /// The server's name for it.
        public let rawValue: String
        /// Wraps a name as the server sends it.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// A free trial.
        public static let trial = PeriodType(rawValue: "trial")
        /// A paid period.
        public static let normal = PeriodType(rawValue: "normal")
    }

    /// The entitlement's name (`premium`), or the product's catalog id when
    /// the server has no entitlements file.
    public var identifier: String
    /// Whether the user may use it now.
    public var isActive: Bool
    /// When access ends (or ended): the end of the paid period or trial; nil is
    /// lifetime access. A renewing subscription whose renewal is overdue stays
    /// active for the server's renewal grace after it (`ENTITLEMENT_RENEWAL_GRACE`).
    public var expiresAt: Date?
    /// Whether a renewal charge is scheduled.
    public var willRenew: Bool
    /// Trial or paid period.
    public var periodType: PeriodType
    /// The catalog id of the product that grants it (compare with ``Product/id``).
    public var productID: String
    /// Who sold it; ``Provider/promotional`` for a grant.
    public var provider: Provider
    /// Subscription or one-time purchase.
    public var source: Source
    /// The latest payment (or, without one, the purchase).
    public var latestPurchaseAt: Date?
    /// The first purchase of the subscription or order.
    public var originalPurchaseAt: Date?
    /// When a cancellation (no more renewals) was first seen; nil while it renews.
    public var unsubscribeDetectedAt: Date?
    /// When a failed payment was first seen; nil while billing is fine.
    public var billingIssueDetectedAt: Date?
    /// A test-mode purchase.
    public var isSandbox: Bool
    /// When a dispute (chargeback) of a payment was opened; nil when none is
    /// open. Access continues while it is open.
    public var disputeDetectedAt: Date?
    /// When money given back (a refund, a lost dispute) ended access; nil when none did.
    public var refundedAt: Date?
    /// RevenueCat's `store`: the provider's name, or `promotional` for a grant.
    public var store: String
    /// The grant's id when ``source`` is ``Source/grant`` (support revokes it by this id); else nil.
    public var grantID: String?

    /// ``identifier``.
    public var id: String { identifier }
    /// Whether access never ends (a lifetime purchase).
    public var isLifetime: Bool { expiresAt == nil }

    /// Creates an entitlement, e.g. for previews and tests.
    public init(
        identifier: String, isActive: Bool, expiresAt: Date? = nil, willRenew: Bool = false, periodType: PeriodType = .normal,
        productID: String, provider: Provider, source: Source = .subscription, latestPurchaseAt: Date? = nil,
        originalPurchaseAt: Date? = nil, unsubscribeDetectedAt: Date? = nil, billingIssueDetectedAt: Date? = nil,
        isSandbox: Bool = false
    ) {
        self.identifier = identifier
        self.isActive = isActive
        self.expiresAt = expiresAt
        self.willRenew = willRenew
        self.periodType = periodType
        self.productID = productID
        self.provider = provider
        self.source = source
        self.latestPurchaseAt = latestPurchaseAt
        self.originalPurchaseAt = originalPurchaseAt
        self.unsubscribeDetectedAt = unsubscribeDetectedAt
        self.billingIssueDetectedAt = billingIssueDetectedAt
        self.isSandbox = isSandbox
        self.store = provider.rawValue
    }

    enum CodingKeys: String, CodingKey {
        case identifier, provider, source, sandbox
        case isActive = "is_active", expiresAt = "expires_at", willRenew = "will_renew", periodType = "period_type"
        case productID = "product_id", latestPurchaseAt = "latest_purchase_at", originalPurchaseAt = "original_purchase_at"
        case unsubscribeDetectedAt = "unsubscribe_detected_at", billingIssueDetectedAt = "billing_issue_detected_at"
        case disputeDetectedAt = "dispute_detected_at", refundedAt = "refunded_at", store, grantID = "grant_id"
    }

    /// Decodes the server's snake_case object (absent values are explicit `null`s).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        identifier = try c.decode(String.self, forKey: .identifier)
        isActive = try c.decode(Bool.self, forKey: .isActive)
        expiresAt = try c.decodeDate(forKey: .expiresAt)
        willRenew = try c.decode(Bool.self, forKey: .willRenew)
        periodType = try c.decode(PeriodType.self, forKey: .periodType)
        productID = try c.decode(String.self, forKey: .productID)
        provider = try c.decode(Provider.self, forKey: .provider)
        source = try c.decode(Source.self, forKey: .source)
        latestPurchaseAt = try c.decodeDate(forKey: .latestPurchaseAt)
        originalPurchaseAt = try c.decodeDate(forKey: .originalPurchaseAt)
        unsubscribeDetectedAt = try c.decodeDate(forKey: .unsubscribeDetectedAt)
        billingIssueDetectedAt = try c.decodeDate(forKey: .billingIssueDetectedAt)
        isSandbox = try c.decode(Bool.self, forKey: .sandbox)
        // Absent (nil) from servers that predate them.
        disputeDetectedAt = try c.decodeDate(forKey: .disputeDetectedAt)
        refundedAt = try c.decodeDate(forKey: .refundedAt)
        store = try c.decodeIfPresent(String.self, forKey: .store) ?? provider.rawValue
        grantID = try c.decodeIfPresent(String.self, forKey: .grantID)
    }

    /// Encodes in the server's shape, with explicit `null`s.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(identifier, forKey: .identifier)
        try c.encode(isActive, forKey: .isActive)
        try c.encodeDate(expiresAt, forKey: .expiresAt)
        try c.encode(willRenew, forKey: .willRenew)
        try c.encode(periodType, forKey: .periodType)
        try c.encode(productID, forKey: .productID)
        try c.encode(provider, forKey: .provider)
        try c.encode(source, forKey: .source)
        try c.encodeDate(latestPurchaseAt, forKey: .latestPurchaseAt)
        try c.encodeDate(originalPurchaseAt, forKey: .originalPurchaseAt)
        try c.encodeDate(unsubscribeDetectedAt, forKey: .unsubscribeDetectedAt)
        try c.encodeDate(billingIssueDetectedAt, forKey: .billingIssueDetectedAt)
        try c.encode(isSandbox, forKey: .sandbox)
        try c.encodeDate(disputeDetectedAt, forKey: .disputeDetectedAt)
        try c.encodeDate(refundedAt, forKey: .refundedAt)
        try c.encode(store, forKey: .store)
        if let grantID { try c.encode(grantID, forKey: .grantID) } else { try c.encodeNil(forKey: .grantID) }
    }
}

extension Array where Element == EntitlementInfo {
    /// The entitlements that grant access now.
    public var active: [EntitlementInfo] { filter(\.isActive) }

    /// Whether the entitlement named `identifier` grants access now.
    public func isActive(_ identifier: String) -> Bool {
        contains { $0.identifier == identifier && $0.isActive }
    }
}

/// `{"success":true,"entitlements":[…]}`.
struct EntitlementsBody: Decodable {
    var entitlements: [EntitlementInfo]
}
