import Foundation

/// The value of a `storefront.checkouts.v1` record: a hosted checkout was
/// created for an app user. Key: ``TopicKey/checkout(_:appUserID:)``.
public struct CheckoutCreatedRecord: Codable, Sendable, Hashable {
    /// Storefront's id for the checkout (a UUID string), also sent to the
    /// provider as custom data ``CustomDataKeys/checkoutID``.
    public var checkoutID: String
    public var provider: Provider
    /// The JWT subject of the buyer; nil for an anonymous (web-first)
    /// checkout, whose purchase has no owner until it is redeemed. JSON
    /// `appUserId`, an explicit `null` then.
    public var appUserID: String?
    /// Email the checkout was pre-filled with, if any.
    public var email: String?
    /// Whether ``email`` is the buyer's verified email: true only when it is
    /// the verified email of the caller's token (`email_verified: true`, or
    /// `AUTH_EMAILS_ARE_VERIFIED=true`); false when it was typed in the
    /// request (`customerEmail`) by a caller whose token has no verified
    /// email, with `AUTH_DISABLED`, and when there is no email. A typed email
    /// only pre-fills the provider's form: matching a purchase to a checkout
    /// by email may only use verified ones. JSON `emailVerified`; false when
    /// absent (records written before it existed).
    public var emailVerified: Bool
    /// Opaque ids the app sent (``CatalogID`` strings).
    public var variantID: CatalogID
    public var productID: CatalogID?
    /// The provider's id for the checkout (Lemon Squeezy checkout UUID, Paystack reference).
    public var providerCheckoutID: String
    public var url: String
    public var createdAt: Date
    public var expiresAt: Date?
    /// Whether the variant bought is a subscription (the catalog item has an
    /// interval): its first payment may arrive as an order before the
    /// subscription does, and that order must not grant on its own. JSON
    /// `isSubscription`; nil when absent (records written before it existed).
    public var isSubscription: Bool?
    /// The campaign tag the checkout was opened with (the paywall's `?ref=`,
    /// or `ref` in the request body), for `storefront report`. JSON `ref`.
    public var ref: String?
    /// The App Store storefront and external purchase token of a checkout
    /// opened from an App Store app that sent them. JSON `appStore`, absent otherwise.
    public var appStore: AppStoreCheckout?

    enum CodingKeys: String, CodingKey {
        case checkoutID = "checkoutId", provider, appUserID = "appUserId", email, emailVerified, variantID = "variantId"
        case productID = "productId", providerCheckoutID = "providerCheckoutId", url, createdAt, expiresAt, isSubscription, ref, appStore
    }

    public init(
        checkoutID: String, provider: Provider, appUserID: String?, email: String?, emailVerified: Bool = false, variantID: CatalogID,
        productID: CatalogID?, providerCheckoutID: String, url: String, createdAt: Date, expiresAt: Date?, isSubscription: Bool? = nil,
        ref: String? = nil, appStore: AppStoreCheckout? = nil
    ) {
        self.checkoutID = checkoutID
        self.provider = provider
        self.appUserID = appUserID
        self.email = email
        self.emailVerified = emailVerified
        self.variantID = variantID
        self.productID = productID
        self.providerCheckoutID = providerCheckoutID
        self.url = url
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.isSubscription = isSubscription
        self.ref = ref
        self.appStore = appStore
    }

    /// The record's topic key.
    /// An anonymous checkout is keyed by its own id (there is no user to order by).
    public var key: String { TopicKey.checkout(provider, appUserID: appUserID ?? "anonymous:\(checkoutID)") }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        checkoutID = try c.decode(String.self, forKey: .checkoutID)
        provider = try c.decode(Provider.self, forKey: .provider)
        appUserID = try c.decodeIfPresent(String.self, forKey: .appUserID)
        email = try c.decodeIfPresent(String.self, forKey: .email)
        emailVerified = try c.decodeIfPresent(Bool.self, forKey: .emailVerified) ?? false
        variantID = try c.decode(CatalogID.self, forKey: .variantID)
        productID = try c.decodeIfPresent(CatalogID.self, forKey: .productID)
        providerCheckoutID = try c.decode(String.self, forKey: .providerCheckoutID)
        url = try c.decode(String.self, forKey: .url)
        createdAt = try c.decodeRequiredTimestamp(forKey: .createdAt)
        expiresAt = try c.decodeTimestamp(forKey: .expiresAt)
        isSubscription = try c.decodeIfPresent(Bool.self, forKey: .isSubscription)
        ref = try c.decodeIfPresent(String.self, forKey: .ref)
        appStore = try c.decodeIfPresent(AppStoreCheckout.self, forKey: .appStore)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(checkoutID, forKey: .checkoutID)
        try c.encode(provider, forKey: .provider)
        try c.encode(appUserID, forKey: .appUserID)
        try c.encode(email, forKey: .email)
        try c.encode(emailVerified, forKey: .emailVerified)
        try c.encode(variantID, forKey: .variantID)
        try c.encode(productID, forKey: .productID)
        try c.encode(providerCheckoutID, forKey: .providerCheckoutID)
        try c.encode(url, forKey: .url)
        try c.encodeTimestamp(createdAt, forKey: .createdAt)
        try c.encodeTimestamp(expiresAt, forKey: .expiresAt)
        try c.encodeIfPresent(isSubscription, forKey: .isSubscription)
        try c.encodeIfPresent(ref, forKey: .ref)
        try c.encodeIfPresent(appStore, forKey: .appStore)
    }
}
