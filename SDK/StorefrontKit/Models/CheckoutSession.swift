import Foundation

/// A hosted checkout opened by ``StorefrontClient/createCheckout(variantID:email:)``:
/// open ``url`` in a browser or web view, then call
/// ``StorefrontClient/awaitPurchase(checkoutID:timeout:)`` with ``checkoutID``.
public struct CheckoutSession: Hashable, Sendable, Identifiable {
    /// The provider's hosted checkout page.
    public var url: URL
    /// Storefront's id for this checkout (the server's `checkoutId`; the
    /// idempotency key when an older server sends none).
    public var checkoutID: String
    /// Who takes the payment.
    public var provider: Provider?
    /// When the link stops working, if the server said.
    public var expiresAt: Date?
    /// When the server created it (its `Date` header; the device clock when absent).
    public var createdAt: Date
    /// The `Idempotency-Key` the request was sent with; retries of this
    /// attempt reused it, so the server created one checkout only.
    public var idempotencyKey: String

    /// ``checkoutID``.
    public var id: String { checkoutID }

    /// Creates a session, e.g. for previews and tests.
    public init(url: URL, checkoutID: String, provider: Provider?, expiresAt: Date?, createdAt: Date, idempotencyKey: String) {
        self.url = url
        self.checkoutID = checkoutID
        self.provider = provider
        self.expiresAt = expiresAt
        self.createdAt = createdAt
        self.idempotencyKey = idempotencyKey
    }
}

/// `{"success":true,"checkoutUrl":"…","checkoutId":"…","provider":"…","expiresAt":"…"}`.
struct CheckoutBody: Decodable {
    var checkoutUrl: String
    var checkoutId: String?
    var provider: Provider?
    var expiresAt: Date?

    enum CodingKeys: String, CodingKey { case checkoutUrl, checkoutId, provider, expiresAt }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        checkoutUrl = try c.decode(String.self, forKey: .checkoutUrl)
        checkoutId = try c.decodeIfPresent(String.self, forKey: .checkoutId)
        provider = try c.decodeIfPresent(Provider.self, forKey: .provider)
        expiresAt = try c.decodeDate(forKey: .expiresAt)
    }
}

/// The `POST /api/create-checkout` body the seed app sends, plus the offer
/// fields (left out when nil, so older servers see the body they know).
struct CheckoutRequestBody: Encodable {
    var variantId: String
    var productId: String?
    var customerEmail: String?
    var promotionCode: String?
    var trialDays: Int?
    var locale: String?
    var storefront: String?
    var externalPurchaseToken: String?
}

/// How a buyer's visit to a hosted checkout ended: the answer of
/// ``StorefrontClient/awaitCheckout(_:timeout:)``.
public enum CheckoutOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The payment arrived: these active entitlements are new or were renewed by it.
    case purchased([EntitlementInfo])
    /// No purchase yet, but not given up on: the wait timed out with the page
    /// perhaps still open, or the buyer came back through the return link
    /// (so they paid) and the purchase has not reached Storefront yet.
    /// ``StorefrontClient/entitlementSnapshots()`` reports it when it lands.
    /// Let the user buy again; show "processing" if the return link came.
    case pending
    /// The buyer left without paying: the app reported the page closed
    /// (``StorefrontClient/checkoutClosed(checkoutID:)``) and no payment
    /// showed within ``StorefrontClient/Options/checkoutClosedGrace``, or the
    /// checkout expired unpaid. Enable the buy button again.
    case cancelled

    /// `purchased(premium)`, `pending` or `cancelled`.
    public var description: String {
        switch self {
        case .purchased(let granted): "purchased(\(granted.map(\.identifier).joined(separator: ", ")))"
        case .pending: "pending"
        case .cancelled: "cancelled"
        }
    }
}

/// What ``StorefrontClient/awaitPurchase(checkoutID:timeout:)`` found
/// (the older form of ``CheckoutOutcome``, which has no way to tell that the
/// buyer closed the page).
public enum PurchaseOutcome: Hashable, Sendable {
    /// The payment arrived: these active entitlements are new or were renewed by it.
    case purchased([EntitlementInfo])
    /// The checkout expired without a payment.
    case expired
    /// The timeout passed with no purchase seen (the webhook may still come:
    /// ``StorefrontClient/entitlementUpdates()`` will report it).
    case timedOut
}

/// The answer to ``StorefrontClient/cancel(subscriptionCode:)`` and
/// ``StorefrontClient/resume(subscriptionCode:)``: the subscription as the
/// provider reports it afterwards.
public struct SubscriptionChange: Codable, Hashable, Sendable {
    /// A human-readable confirmation (`Subscription cancelled`).
    public var message: String
    /// Who bills the subscription.
    public var provider: Provider
    /// The subscription's code.
    public var subscriptionCode: String
    /// The provider's status word afterwards (`cancelled`, `non-renewing`, `active`, …).
    public var providerStatus: String
    /// When access ends, if it does.
    public var endsAt: Date?
    /// When it renews, if it does.
    public var renewsAt: Date?
    /// Cancelled, but still paid for until ``endsAt``.
    public var cancelAtPeriodEnd: Bool

    /// Creates a change, e.g. for previews and tests.
    public init(
        message: String, provider: Provider, subscriptionCode: String, providerStatus: String,
        endsAt: Date?, renewsAt: Date?, cancelAtPeriodEnd: Bool
    ) {
        self.message = message
        self.provider = provider
        self.subscriptionCode = subscriptionCode
        self.providerStatus = providerStatus
        self.endsAt = endsAt
        self.renewsAt = renewsAt
        self.cancelAtPeriodEnd = cancelAtPeriodEnd
    }

    enum CodingKeys: String, CodingKey {
        case message, provider, status
        case subscriptionCode = "subscription_code", endsAt = "ends_at", renewsAt = "renews_at"
        case cancelAtPeriodEnd = "cancel_at_period_end"
    }

    /// Decodes the server's snake_case answer.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        message = try c.decodeIfPresent(String.self, forKey: .message) ?? ""
        provider = try c.decode(Provider.self, forKey: .provider)
        subscriptionCode = try c.decode(String.self, forKey: .subscriptionCode)
        providerStatus = try c.decode(String.self, forKey: .status)
        endsAt = try c.decodeDate(forKey: .endsAt)
        renewsAt = try c.decodeDate(forKey: .renewsAt)
        cancelAtPeriodEnd = try c.decodeIfPresent(Bool.self, forKey: .cancelAtPeriodEnd) ?? false
    }

    /// Encodes in the server's shape, with explicit `null`s.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(message, forKey: .message)
        try c.encode(provider, forKey: .provider)
        try c.encode(subscriptionCode, forKey: .subscriptionCode)
        try c.encode(providerStatus, forKey: .status)
        try c.encodeDate(endsAt, forKey: .endsAt)
        try c.encodeDate(renewsAt, forKey: .renewsAt)
        try c.encode(cancelAtPeriodEnd, forKey: .cancelAtPeriodEnd)
    }
}

/// `{"subscription_code":"…","email_token":"…"}`.
struct SubscriptionCommandBody: Encodable {
    var subscriptionCode: String
    var emailToken: String?

    enum CodingKeys: String, CodingKey { case subscriptionCode = "subscription_code", emailToken = "email_token" }
}
