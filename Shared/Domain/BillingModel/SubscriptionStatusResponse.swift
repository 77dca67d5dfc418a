import Foundation

/// `GET /api/subscription/status` answer. The first five keys are the seed
/// app's contract; every optional key is written as an explicit `null` when
/// unknown (never omitted), which ``encode(to:)`` guarantees.
///
/// `subscription_code` is what the app sends back to cancel: the Paystack
/// `SUB_…` code, or the Lemon Squeezy subscription id. Timestamps are
/// ISO-8601 UTC strings (`2025-06-19T14:08:09.000Z`).
public struct SubscriptionStatusResponse: Codable, Sendable, Hashable {
    /// A checkout created but not (yet) paid, so the app can show "finishing purchase".
    public struct PendingCheckout: Codable, Sendable, Hashable {
        public var checkoutId: String
        /// The provider's hosted checkout page. Null in a server answer without
        /// the `subscriptions:manage` scope (``withoutCapabilities``): it opens a payment.
        public var url: String?
        public var createdAt: Date
        public var expiresAt: Date?

        enum CodingKeys: String, CodingKey {
            case checkoutId = "checkout_id", url, createdAt = "created_at", expiresAt = "expires_at"
        }

        public init(checkoutId: String, url: String?, createdAt: Date, expiresAt: Date?) {
            self.checkoutId = checkoutId
            self.url = url
            self.createdAt = createdAt
            self.expiresAt = expiresAt
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            checkoutId = try c.decode(String.self, forKey: .checkoutId)
            url = try c.decodeIfPresent(String.self, forKey: .url)
            createdAt = try c.decodeRequiredTimestamp(forKey: .createdAt)
            expiresAt = try c.decodeTimestamp(forKey: .expiresAt)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(checkoutId, forKey: .checkoutId)
            try c.encode(url, forKey: .url)
            try c.encodeTimestamp(createdAt, forKey: .createdAt)
            try c.encodeTimestamp(expiresAt, forKey: .expiresAt)
        }
    }

    /// Whether the user has access now (includes a cancelled subscription's grace period).
    public var active: Bool
    public var planName: String?
    /// Next charge (renews_at / next_payment_date) as ISO-8601; null when none will happen.
    public var nextBillingDate: Date?
    public var subscriptionCode: String?
    /// Paystack's email token (needed to disable); null for Lemon Squeezy, and
    /// in server answers without `subscriptions:manage` (``withoutCapabilities``).
    public var emailToken: String?
    /// The provider's raw status (`active`, `on_trial`, `non-renewing`, `cancelled`, …).
    public var status: String?
    public var provider: Provider?
    public var renewsAt: Date?
    public var endsAt: Date?
    /// True when cancelled but still inside the paid period.
    public var cancelAtPeriodEnd: Bool
    /// Lemon Squeezy's pre-signed customer portal link; null in server answers
    /// without `subscriptions:manage` (``withoutCapabilities``).
    public var customerPortalURL: String?
    /// The user's entitlements, as `GET /api/entitlements` answers them; empty when none.
    public var entitlements: [EntitlementInfo]
    public var pendingCheckout: PendingCheckout?
    /// A plan change the provider will make at the end of the period; null when none is pending.
    public var pendingPlanChange: PendingPlanChange?

    /// `{"variantId": "st_price_…", "effective_at": "…"}`: the plan the subscription moves to, and when.
    public struct PendingPlanChange: Codable, Sendable, Hashable {
        public var variantId: String
        public var effectiveAt: Date?

        public init(variantId: String, effectiveAt: Date?) {
            self.variantId = variantId
            self.effectiveAt = effectiveAt
        }

        enum CodingKeys: String, CodingKey { case variantId, effectiveAt = "effective_at" }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            variantId = try c.decode(String.self, forKey: .variantId)
            effectiveAt = try c.decodeTimestamp(forKey: .effectiveAt)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(variantId, forKey: .variantId)
            try c.encodeTimestamp(effectiveAt, forKey: .effectiveAt)
        }
    }

    enum CodingKeys: String, CodingKey {
        case active, status, provider, entitlements
        case planName = "plan_name"
        case nextBillingDate = "next_billing_date"
        case subscriptionCode = "subscription_code"
        case emailToken = "email_token"
        case renewsAt = "renews_at"
        case endsAt = "ends_at"
        case cancelAtPeriodEnd = "cancel_at_period_end"
        case customerPortalURL = "customer_portal_url"
        case pendingCheckout = "pending_checkout"
        case pendingPlanChange = "pending_plan_change"
    }

    public init(
        active: Bool, planName: String? = nil, nextBillingDate: Date? = nil, subscriptionCode: String? = nil,
        emailToken: String? = nil, status: String? = nil, provider: Provider? = nil, renewsAt: Date? = nil,
        endsAt: Date? = nil, cancelAtPeriodEnd: Bool = false, customerPortalURL: String? = nil,
        entitlements: [EntitlementInfo] = [], pendingCheckout: PendingCheckout? = nil
    ) {
        self.active = active
        self.planName = planName
        self.nextBillingDate = nextBillingDate
        self.subscriptionCode = subscriptionCode
        self.emailToken = emailToken
        self.status = status
        self.provider = provider
        self.renewsAt = renewsAt
        self.endsAt = endsAt
        self.cancelAtPeriodEnd = cancelAtPeriodEnd
        self.customerPortalURL = customerPortalURL
        self.entitlements = entitlements
        self.pendingCheckout = pendingCheckout
    }

    /// The answer for a user with nothing: inactive, every optional null.
    public static let none = SubscriptionStatusResponse(active: false)

    /// This answer with every field that can act on the subscription set to
    /// null: what a server key with only `entitlements:read` is answered.
    ///
    /// Each of these is a capability, not a fact: the Lemon Squeezy portal link
    /// is pre-signed and can cancel the subscription and change its card;
    /// Paystack's `email_token` with the subscription code disables it; the
    /// pending checkout's URL opens the payment page. Everything else (status,
    /// dates, plan, the subscription code, entitlements) only describes, and
    /// acting on a subscription code needs the user's own token. A field added
    /// here later that can act must be cleared here too
    /// (`ServerRouteAuthTests` scans the answer for URLs and tokens).
    public var withoutCapabilities: SubscriptionStatusResponse {
        var answer = self
        answer.emailToken = nil
        answer.customerPortalURL = nil
        answer.pendingCheckout?.url = nil
        return answer
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        active = try c.decode(Bool.self, forKey: .active)
        planName = try c.decodeIfPresent(String.self, forKey: .planName)
        nextBillingDate = try c.decodeTimestamp(forKey: .nextBillingDate)
        subscriptionCode = try c.decodeIfPresent(String.self, forKey: .subscriptionCode)
        emailToken = try c.decodeIfPresent(String.self, forKey: .emailToken)
        status = try c.decodeIfPresent(String.self, forKey: .status)
        provider = try c.decodeIfPresent(Provider.self, forKey: .provider)
        renewsAt = try c.decodeTimestamp(forKey: .renewsAt)
        endsAt = try c.decodeTimestamp(forKey: .endsAt)
        cancelAtPeriodEnd = try c.decodeIfPresent(Bool.self, forKey: .cancelAtPeriodEnd) ?? false
        customerPortalURL = try c.decodeIfPresent(String.self, forKey: .customerPortalURL)
        entitlements = try c.decodeIfPresent([EntitlementInfo].self, forKey: .entitlements) ?? []
        pendingCheckout = try c.decodeIfPresent(PendingCheckout.self, forKey: .pendingCheckout)
        pendingPlanChange = try c.decodeIfPresent(PendingPlanChange.self, forKey: .pendingPlanChange)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        // `encode` (not `encodeIfPresent`) on optionals writes an explicit null.
        try c.encode(active, forKey: .active)
        try c.encode(planName, forKey: .planName)
        try c.encodeTimestamp(nextBillingDate, forKey: .nextBillingDate)
        try c.encode(subscriptionCode, forKey: .subscriptionCode)
        try c.encode(emailToken, forKey: .emailToken)
        try c.encode(status, forKey: .status)
        try c.encode(provider, forKey: .provider)
        try c.encodeTimestamp(renewsAt, forKey: .renewsAt)
        try c.encodeTimestamp(endsAt, forKey: .endsAt)
        try c.encode(cancelAtPeriodEnd, forKey: .cancelAtPeriodEnd)
        try c.encode(customerPortalURL, forKey: .customerPortalURL)
        try c.encode(entitlements, forKey: .entitlements)
        try c.encode(pendingCheckout, forKey: .pendingCheckout)
        try c.encode(pendingPlanChange, forKey: .pendingPlanChange)
    }
}
