import Foundation

/// One entitlement of one app user, as `GET /api/entitlements` and the status
/// answer's `entitlements` list carry it. Modelled on RevenueCat's
/// `EntitlementInfo`, so an app written against it reads the same facts:
/// whether access is granted now, until when, and why.
///
/// Keys are snake_case; every optional is written as an explicit `null`.
public struct EntitlementInfo: Codable, Sendable, Hashable {
    /// Where the access comes from.
    public enum Source: String, Codable, Sendable, Hashable {
        case subscription, purchase
        /// A promotional grant (`POST /api/users/{app_user_id}/grants`): no money changed hands.
        case grant
    }

    /// The `provider` and `store` of a grant, which no provider sold.
    public static let promotionalStore = "promotional"

    /// Trial or paid period (RevenueCat's `periodType`).
    public enum PeriodType: String, Codable, Sendable, Hashable {
        case trial, normal
    }

    /// The entitlement's name (`premium`), or the product's catalog id when no
    /// entitlements file is configured.
    public var identifier: String
    /// Whether the user may use it now.
    public var isActive: Bool
    /// When access ends (or ended): the end of the paid period or trial; null is
    /// lifetime access. A renewing subscription whose renewal is overdue stays
    /// active for the server's renewal grace after it (`ENTITLEMENT_RENEWAL_GRACE`).
    public var expiresAt: Date?
    /// Whether a renewal charge is scheduled.
    public var willRenew: Bool
    public var periodType: PeriodType
    /// The catalog id (`ls_2`, `ps_PLN_x`) of the product that grants it.
    public var productID: String
    /// Who sold it; nil for a grant (written `"promotional"`, as ``store`` is,
    /// so that every client reading `provider` as a name keeps decoding it).
    public var provider: Provider?
    public var source: Source
    /// The latest payment (or, without one, the purchase).
    public var latestPurchaseAt: Date?
    /// The first purchase of the subscription or order.
    public var originalPurchaseAt: Date?
    /// When a cancellation (no more renewals) was first seen; null while it renews.
    public var unsubscribeDetectedAt: Date?
    /// When a failed payment was first seen; null when billing is fine.
    public var billingIssueDetectedAt: Date?
    /// A test-mode purchase (Lemon Squeezy `test_mode`, Paystack test keys).
    public var sandbox: Bool
    /// When a dispute (chargeback) of a payment was opened; null when none is
    /// open. Access continues while it is open (README, "Access").
    public var disputeDetectedAt: Date? = nil
    /// When money given back (a refund, a lost dispute) ended access; null when none did.
    public var refundedAt: Date? = nil
    /// The grant's id (`grant_…`, to revoke it by) when ``source`` is ``Source/grant``; else null.
    public var grantID: String? = nil

    /// RevenueCat's `store`: the provider's name, or `promotional` for a grant.
    public var store: String { provider?.rawValue ?? Self.promotionalStore }

    public init(
        identifier: String, isActive: Bool, expiresAt: Date?, willRenew: Bool, periodType: PeriodType,
        productID: String, provider: Provider?, source: Source, latestPurchaseAt: Date?,
        originalPurchaseAt: Date?, unsubscribeDetectedAt: Date?, billingIssueDetectedAt: Date?, sandbox: Bool
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
        self.sandbox = sandbox
    }

    enum CodingKeys: String, CodingKey {
        case identifier, provider, source, sandbox, store
        case isActive = "is_active", expiresAt = "expires_at", willRenew = "will_renew", periodType = "period_type"
        case productID = "product_id", latestPurchaseAt = "latest_purchase_at", originalPurchaseAt = "original_purchase_at"
        case unsubscribeDetectedAt = "unsubscribe_detected_at", billingIssueDetectedAt = "billing_issue_detected_at"
        case disputeDetectedAt = "dispute_detected_at", refundedAt = "refunded_at", grantID = "grant_id"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        identifier = try c.decode(String.self, forKey: .identifier)
        isActive = try c.decode(Bool.self, forKey: .isActive)
        expiresAt = try c.decodeTimestamp(forKey: .expiresAt)
        willRenew = try c.decode(Bool.self, forKey: .willRenew)
        periodType = try c.decode(PeriodType.self, forKey: .periodType)
        productID = try c.decode(String.self, forKey: .productID)
        let providerName = try c.decode(String.self, forKey: .provider)
        if providerName == Self.promotionalStore {
            provider = nil
        } else {
            provider = try c.decode(Provider.self, forKey: .provider)
        }
        source = try c.decode(Source.self, forKey: .source)
        latestPurchaseAt = try c.decodeTimestamp(forKey: .latestPurchaseAt)
        originalPurchaseAt = try c.decodeTimestamp(forKey: .originalPurchaseAt)
        unsubscribeDetectedAt = try c.decodeTimestamp(forKey: .unsubscribeDetectedAt)
        billingIssueDetectedAt = try c.decodeTimestamp(forKey: .billingIssueDetectedAt)
        sandbox = try c.decode(Bool.self, forKey: .sandbox)
        disputeDetectedAt = try c.decodeTimestamp(forKey: .disputeDetectedAt)
        refundedAt = try c.decodeTimestamp(forKey: .refundedAt)
        // Absent from lists stored before grants (read back by the outbox).
        grantID = try c.decodeIfPresent(String.self, forKey: .grantID)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(identifier, forKey: .identifier)
        try c.encode(isActive, forKey: .isActive)
        try c.encodeTimestamp(expiresAt, forKey: .expiresAt)
        try c.encode(willRenew, forKey: .willRenew)
        try c.encode(periodType, forKey: .periodType)
        try c.encode(productID, forKey: .productID)
        try c.encode(store, forKey: .provider)
        try c.encode(source, forKey: .source)
        try c.encode(store, forKey: .store)
        try c.encodeTimestamp(latestPurchaseAt, forKey: .latestPurchaseAt)
        try c.encodeTimestamp(originalPurchaseAt, forKey: .originalPurchaseAt)
        try c.encodeTimestamp(unsubscribeDetectedAt, forKey: .unsubscribeDetectedAt)
        try c.encodeTimestamp(billingIssueDetectedAt, forKey: .billingIssueDetectedAt)
        try c.encode(sandbox, forKey: .sandbox)
        try c.encodeTimestamp(disputeDetectedAt, forKey: .disputeDetectedAt)
        try c.encodeTimestamp(refundedAt, forKey: .refundedAt)
        if let grantID { try c.encode(grantID, forKey: .grantID) } else { try c.encodeNil(forKey: .grantID) }
    }
}

/// `GET /api/entitlements`: every entitlement the user holds or held, active first.
public struct EntitlementsResponse: Codable, Sendable, Hashable {
    public var success: Bool
    public var entitlements: [EntitlementInfo]

    public init(entitlements: [EntitlementInfo]) {
        success = true
        self.entitlements = entitlements
    }
}
