import Foundation

/// The signed-in user's subscription and entitlements, from
/// `GET /api/subscription/status`.
///
/// The first five properties are the seed tutorial's (`active`, `plan_name`,
/// `next_billing_date`, `subscription_code`, `email_token`); the rest are
/// Storefront's extras. Absent values arrive as explicit `null`s and are nil here.
public struct SubscriptionStatus: Codable, Hashable, Sendable {
    /// A checkout the user opened (within the last hour) with no payment yet.
    public struct PendingCheckout: Codable, Hashable, Sendable {
        /// Storefront's checkout id, as ``CheckoutSession/checkoutID``.
        public var checkoutID: String
        /// The hosted checkout page.
        public var url: URL?
        /// When the checkout was opened (server time).
        public var createdAt: Date
        /// When the checkout link stops working, if known.
        public var expiresAt: Date?

        /// Creates a pending checkout, e.g. for previews and tests.
        public init(checkoutID: String, url: URL?, createdAt: Date, expiresAt: Date?) {
            self.checkoutID = checkoutID
            self.url = url
            self.createdAt = createdAt
            self.expiresAt = expiresAt
        }

        enum CodingKeys: String, CodingKey {
            case checkoutID = "checkout_id", url, createdAt = "created_at", expiresAt = "expires_at"
        }

        /// Decodes the server's snake_case object.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            checkoutID = try c.decode(String.self, forKey: .checkoutID)
            url = try c.decodeURL(forKey: .url)
            createdAt = try c.decodeRequiredDate(forKey: .createdAt)
            expiresAt = try c.decodeDate(forKey: .expiresAt)
        }

        /// Encodes in the server's shape.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(checkoutID, forKey: .checkoutID)
            try c.encode(url?.absoluteString ?? "", forKey: .url)
            try c.encodeDate(createdAt, forKey: .createdAt)
            try c.encodeDate(expiresAt, forKey: .expiresAt)
        }
    }

    /// Whether the user's (primary) subscription grants access now, including
    /// a cancelled one's remaining paid period.
    public var isActive: Bool
    /// The plan's name.
    public var planName: String?
    /// The next charge; nil when none will happen (e.g. after a cancellation).
    public var nextBillingDate: Date?
    /// What ``StorefrontClient/cancel(subscriptionCode:)`` takes: Paystack's
    /// `SUB_…` code or the Lemon Squeezy subscription id.
    public var subscriptionCode: String?
    /// Paystack's email token (the seed app sends it back when cancelling).
    public var emailToken: String?
    /// The provider's own status word (`active`, `on_trial`, `non-renewing`, `cancelled`, …).
    public var providerStatus: String?
    /// Who bills the subscription.
    public var provider: Provider?
    /// When it renews, if it does.
    public var renewsAt: Date?
    /// When it ends (or ended), if it does.
    public var endsAt: Date?
    /// Cancelled, but still paid for until ``endsAt``.
    public var cancelAtPeriodEnd: Bool
    /// Where the user can manage billing at the provider, if it has such a page.
    public var customerPortalURL: URL?
    /// Every entitlement the user holds or held, active ones first.
    public var entitlements: [EntitlementInfo]
    /// The newest checkout still waiting for a payment, if any.
    public var pendingCheckout: PendingCheckout?
    /// A plan change that takes effect at the end of the period
    /// (``StorefrontClient/changePlan(to:effective:proration:subscriptionCode:)``
    /// with ``PlanChangeTiming/periodEnd``); nil when none is pending.
    public var pendingPlanChange: PendingPlanChange?

    /// The plan the subscription moves to, and when.
    public struct PendingPlanChange: Codable, Hashable, Sendable {
        /// The new plan's ``Product/variantID``.
        public var variantID: String
        public var effectiveAt: Date?

        /// Creates one, e.g. for previews and tests.
        public init(variantID: String, effectiveAt: Date?) {
            self.variantID = variantID
            self.effectiveAt = effectiveAt
        }

        enum CodingKeys: String, CodingKey { case variantID = "variantId", effectiveAt = "effective_at" }

        /// Decodes the server's object.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            variantID = try c.decode(String.self, forKey: .variantID)
            effectiveAt = try c.decodeDate(forKey: .effectiveAt)
        }

        /// Encodes in the server's shape.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(variantID, forKey: .variantID)
            try c.encodeDate(effectiveAt, forKey: .effectiveAt)
        }
    }

    /// Creates a status, e.g. for previews and tests.
    public init(
        isActive: Bool, planName: String? = nil, nextBillingDate: Date? = nil, subscriptionCode: String? = nil,
        emailToken: String? = nil, providerStatus: String? = nil, provider: Provider? = nil, renewsAt: Date? = nil,
        endsAt: Date? = nil, cancelAtPeriodEnd: Bool = false, customerPortalURL: URL? = nil,
        entitlements: [EntitlementInfo] = [], pendingCheckout: PendingCheckout? = nil
    ) {
        self.isActive = isActive
        self.planName = planName
        self.nextBillingDate = nextBillingDate
        self.subscriptionCode = subscriptionCode
        self.emailToken = emailToken
        self.providerStatus = providerStatus
        self.provider = provider
        self.renewsAt = renewsAt
        self.endsAt = endsAt
        self.cancelAtPeriodEnd = cancelAtPeriodEnd
        self.customerPortalURL = customerPortalURL
        self.entitlements = entitlements
        self.pendingCheckout = pendingCheckout
    }

    enum CodingKeys: String, CodingKey {
        case active, status, provider, entitlements
        case planName = "plan_name", nextBillingDate = "next_billing_date", subscriptionCode = "subscription_code"
        case emailToken = "email_token", renewsAt = "renews_at", endsAt = "ends_at"
        case cancelAtPeriodEnd = "cancel_at_period_end", customerPortalURL = "customer_portal_url"
        case pendingCheckout = "pending_checkout", pendingPlanChange = "pending_plan_change"
    }

    /// Decodes the server's snake_case answer.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        isActive = try c.decode(Bool.self, forKey: .active)
        planName = try c.decodeIfPresent(String.self, forKey: .planName)
        nextBillingDate = try c.decodeDate(forKey: .nextBillingDate)
        subscriptionCode = try c.decodeIfPresent(String.self, forKey: .subscriptionCode)
        emailToken = try c.decodeIfPresent(String.self, forKey: .emailToken)
        providerStatus = try c.decodeIfPresent(String.self, forKey: .status)
        provider = try c.decodeIfPresent(Provider.self, forKey: .provider)
        renewsAt = try c.decodeDate(forKey: .renewsAt)
        endsAt = try c.decodeDate(forKey: .endsAt)
        cancelAtPeriodEnd = try c.decodeIfPresent(Bool.self, forKey: .cancelAtPeriodEnd) ?? false
        customerPortalURL = try c.decodeURL(forKey: .customerPortalURL)
        entitlements = try c.decodeIfPresent([EntitlementInfo].self, forKey: .entitlements) ?? []
        pendingCheckout = try c.decodeIfPresent(PendingCheckout.self, forKey: .pendingCheckout)
        pendingPlanChange = try c.decodeIfPresent(PendingPlanChange.self, forKey: .pendingPlanChange)
    }

    /// Encodes in the server's shape, with explicit `null`s.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(isActive, forKey: .active)
        try c.encode(planName, forKey: .planName)
        try c.encodeDate(nextBillingDate, forKey: .nextBillingDate)
        try c.encode(subscriptionCode, forKey: .subscriptionCode)
        try c.encode(emailToken, forKey: .emailToken)
        try c.encode(providerStatus, forKey: .status)
        try c.encode(provider, forKey: .provider)
        try c.encodeDate(renewsAt, forKey: .renewsAt)
        try c.encodeDate(endsAt, forKey: .endsAt)
        try c.encode(cancelAtPeriodEnd, forKey: .cancelAtPeriodEnd)
        try c.encodeURL(customerPortalURL, forKey: .customerPortalURL)
        try c.encode(entitlements, forKey: .entitlements)
        try c.encode(pendingCheckout, forKey: .pendingCheckout)
        try c.encode(pendingPlanChange, forKey: .pendingPlanChange)
    }
}
