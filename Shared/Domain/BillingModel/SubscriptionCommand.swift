import Foundation

/// The value of a `storefront.commands.v1` record: something an app user asked
/// to be done to a purchase, recorded after it was done: a cancel or resume
/// the provider accepted (with the provider's object as read right after), an
/// unowned purchase claimed through a verified email, or a subscription past
/// its period end to be fetched from the provider now.
/// Key: ``TopicKey/command(_:subscriptionID:)``.
public struct SubscriptionCommand: Codable, Sendable, Hashable {
    /// What was requested. Unknown kinds from newer producers decode as `.other`.
    public enum Kind: Codable, Sendable, Hashable, RawRepresentable {
        case cancelRequested
        case resumeRequested
        /// A purchase with no owner whose buyer email equals the caller's
        /// verified email: the projector makes the caller its owner for good
        /// (unless someone owns it by then).
        case claimByEmail
        /// A read found the subscription past its period end (the renewal
        /// should have happened) while its status still says it renews: the
        /// reconciler fetches it from the provider at once and publishes the
        /// snapshot. Changes nothing by itself (the projector only audits it).
        case refreshRequested
        /// The purchase's redemption token was redeemed by the app user: the
        /// strongest evidence of ownership (`redemption`); the first
        /// redemption of a purchase stands (docs/web-first.md).
        case redeem
        /// A server's API key (scope `purchases:refund`) asked the provider to
        /// refund a payment of the purchase, and the provider accepted or did
        /// not answer (``SubscriptionCommand/refund`` says which and who
        /// asked). An audit record only: access changes when the provider's
        /// refund webhook (or the reconciler's fetch) brings the money back.
        case refundRequested
        /// The provider accepted a change of the subscription's plan
        /// (docs/plan-changes.md): ``SubscriptionCommand/observed`` carries the
        /// plan the provider answered with, so the entitlement follows it.
        case planChangeRequested
        case other(String)

        public init(rawValue: String) {
            switch rawValue {
            case "cancel_requested": self = .cancelRequested
            case "resume_requested": self = .resumeRequested
            case "claim_by_email": self = .claimByEmail
            case "refresh_requested": self = .refreshRequested
            case "redeem": self = .redeem
            case "refund_requested": self = .refundRequested
            case "plan_change_requested": self = .planChangeRequested
            default: self = .other(rawValue)
            }
        }

        public var rawValue: String {
            switch self {
            case .cancelRequested: "cancel_requested"
            case .resumeRequested: "resume_requested"
            case .claimByEmail: "claim_by_email"
            case .refreshRequested: "refresh_requested"
            case .redeem: "redeem"
            case .refundRequested: "refund_requested"
            case .planChangeRequested: "plan_change_requested"
            case .other(let name): name
            }
        }

        public init(from decoder: any Decoder) throws { self.init(rawValue: try decoder.singleValueContainer().decode(String.self)) }
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }

    /// Unique id of the command (UUID string), for idempotent apply.
    public var commandID: String
    public var kind: Kind
    public var provider: Provider
    /// The purchase's provider id: a subscription (Lemon Squeezy id, Paystack
    /// `SUB_…` code), or an order when ``purchaseType`` is `.order`.
    public var subscriptionID: String
    public var appUserID: String
    public var requestedAt: Date
    /// What ``subscriptionID`` names; only claims and redemptions name orders.
    public var purchaseType: PurchaseType = .subscription
    /// The provider's subscription as read right after it accepted a cancel or resume.
    public var observed: ObservedSubscription?
    /// For ``Kind/refundRequested``: who asked, for how much, of which payment.
    public var refund: RefundAudit?

    enum CodingKeys: String, CodingKey {
        case commandID = "commandId", kind, provider, subscriptionID = "subscriptionId", appUserID = "appUserId", requestedAt
        case purchaseType, observed, refund
    }

    public init(commandID: String, kind: Kind, provider: Provider, subscriptionID: String, appUserID: String, requestedAt: Date) {
        self.commandID = commandID
        self.kind = kind
        self.provider = provider
        self.subscriptionID = subscriptionID
        self.appUserID = appUserID
        self.requestedAt = requestedAt
    }

    /// The record's topic key.
    public var key: String { TopicKey.command(provider, subscriptionID: subscriptionID) }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        commandID = try c.decode(String.self, forKey: .commandID)
        kind = try c.decode(Kind.self, forKey: .kind)
        provider = try c.decode(Provider.self, forKey: .provider)
        subscriptionID = try c.decode(String.self, forKey: .subscriptionID)
        appUserID = try c.decode(String.self, forKey: .appUserID)
        requestedAt = try c.decodeRequiredTimestamp(forKey: .requestedAt)
        purchaseType = try c.decodeIfPresent(PurchaseType.self, forKey: .purchaseType) ?? .subscription
        observed = try c.decodeIfPresent(ObservedSubscription.self, forKey: .observed)
        refund = try c.decodeIfPresent(RefundAudit.self, forKey: .refund)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(commandID, forKey: .commandID)
        try c.encode(kind, forKey: .kind)
        try c.encode(provider, forKey: .provider)
        try c.encode(subscriptionID, forKey: .subscriptionID)
        try c.encode(appUserID, forKey: .appUserID)
        try c.encodeTimestamp(requestedAt, forKey: .requestedAt)
        try c.encode(purchaseType, forKey: .purchaseType)
        try c.encodeIfPresent(observed, forKey: .observed)
        try c.encodeIfPresent(refund, forKey: .refund)
    }
}

/// The audit part of a `refund_requested` command: what the projector keeps
/// in its `commands` table beside the kind and the purchase.
public struct RefundAudit: Codable, Sendable, Hashable {
    /// How the provider took the call.
    public enum Outcome: String, Codable, Sendable, Hashable {
        /// It answered with a refund (which may still be pending at the provider).
        case accepted
        /// It did not answer: the refund may or may not have happened.
        case noAnswer = "no_answer"
    }

    /// The id of the API key that asked (never the key itself).
    public var requestedBy: String
    /// The payment refunded, as the projection names it (order id, invoice or transaction id).
    public var paymentID: String
    /// Minor units asked for; nil asked for all that was left.
    public var amount: Int64?
    public var outcome: Outcome
    /// The provider's refund id when it gave one.
    public var providerRefundID: String?

    public init(requestedBy: String, paymentID: String, amount: Int64?, outcome: Outcome, providerRefundID: String?) {
        self.requestedBy = requestedBy
        self.paymentID = paymentID
        self.amount = amount
        self.outcome = outcome
        self.providerRefundID = providerRefundID
    }
}

/// Which kind of purchase a row or record is about.
public enum PurchaseType: String, Codable, Sendable, Hashable {
    case subscription, order
}

/// A subscription as its provider answered when asked directly (not through
/// a webhook): the provider's own status and dates at ``observedAt``.
public struct ObservedSubscription: Codable, Sendable, Hashable {
    /// The provider's raw status (`active`, `non-renewing`, `cancelled`, …).
    public var status: String
    public var renewsAt: Date?
    public var endsAt: Date?
    /// Lemon Squeezy `cancelled`; Paystack: no renewal will happen.
    public var cancelled: Bool
    public var emailToken: String?
    /// When the answer was received: it reflects every provider change before then.
    public var observedAt: Date
    /// The plan the provider answered with (set after a plan change; nil
    /// after a cancel or resume, which leave the plan as it was).
    public var productID: String?
    public var variantID: String?
    public var planName: String?
    /// A plan change the provider will make at ``pendingChangeAt`` (the new plan's raw id).
    public var pendingVariantID: String?
    public var pendingChangeAt: Date?
    /// The subscription the provider made to carry the pending change
    /// (Paystack, which has no plan change: the new plan's subscription,
    /// starting at ``pendingChangeAt``), as it answered; nil otherwise.
    public var successor: Successor?

    /// A new subscription that takes over from the observed one at its period end.
    public struct Successor: Codable, Sendable, Hashable {
        /// The provider's id of the new subscription (Paystack `SUB_…`).
        public var subscriptionID: String
        /// Its status as the provider answered at creation.
        public var status: String
        /// When it takes over (its first charge).
        public var startsAt: Date

        public init(subscriptionID: String, status: String, startsAt: Date) {
            self.subscriptionID = subscriptionID
            self.status = status
            self.startsAt = startsAt
        }

        enum CodingKeys: String, CodingKey {
            case subscriptionID = "subscriptionId", status, startsAt
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            subscriptionID = try c.decode(String.self, forKey: .subscriptionID)
            status = try c.decode(String.self, forKey: .status)
            startsAt = try c.decodeRequiredTimestamp(forKey: .startsAt)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(subscriptionID, forKey: .subscriptionID)
            try c.encode(status, forKey: .status)
            try c.encodeTimestamp(startsAt, forKey: .startsAt)
        }
    }

    public init(status: String, renewsAt: Date?, endsAt: Date?, cancelled: Bool, emailToken: String?, observedAt: Date) {
        self.status = status
        self.renewsAt = renewsAt
        self.endsAt = endsAt
        self.cancelled = cancelled
        self.emailToken = emailToken
        self.observedAt = observedAt
    }

    enum CodingKeys: String, CodingKey {
        case status, renewsAt, endsAt, cancelled, emailToken, observedAt, productID = "productId", variantID = "variantId", planName
        case pendingVariantID = "pendingVariantId", pendingChangeAt, successor
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        status = try c.decode(String.self, forKey: .status)
        renewsAt = try c.decodeTimestamp(forKey: .renewsAt)
        endsAt = try c.decodeTimestamp(forKey: .endsAt)
        cancelled = try c.decodeIfPresent(Bool.self, forKey: .cancelled) ?? false
        emailToken = try c.decodeIfPresent(String.self, forKey: .emailToken)
        observedAt = try c.decodeRequiredTimestamp(forKey: .observedAt)
        productID = try c.decodeIfPresent(String.self, forKey: .productID)
        variantID = try c.decodeIfPresent(String.self, forKey: .variantID)
        planName = try c.decodeIfPresent(String.self, forKey: .planName)
        pendingVariantID = try c.decodeIfPresent(String.self, forKey: .pendingVariantID)
        pendingChangeAt = try c.decodeTimestamp(forKey: .pendingChangeAt)
        successor = try c.decodeIfPresent(Successor.self, forKey: .successor)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(status, forKey: .status)
        try c.encodeTimestamp(renewsAt, forKey: .renewsAt)
        try c.encodeTimestamp(endsAt, forKey: .endsAt)
        try c.encode(cancelled, forKey: .cancelled)
        try c.encodeIfPresent(emailToken, forKey: .emailToken)
        try c.encodeTimestamp(observedAt, forKey: .observedAt)
        try c.encodeIfPresent(productID, forKey: .productID)
        try c.encodeIfPresent(variantID, forKey: .variantID)
        try c.encodeIfPresent(planName, forKey: .planName)
        try c.encodeIfPresent(pendingVariantID, forKey: .pendingVariantID)
        if let pendingChangeAt { try c.encodeTimestamp(pendingChangeAt, forKey: .pendingChangeAt) }
        try c.encodeIfPresent(successor, forKey: .successor)
    }
}
