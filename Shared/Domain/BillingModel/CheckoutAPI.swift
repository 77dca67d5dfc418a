import Foundation

/// `POST /api/create-checkout` body: `{"customerEmail":"…","variantId":"…","productId":"…"}`,
/// and the optional offer fields `promotionCode`, `trialDays`, `locale`.
///
/// Only `variantId` is required: the user comes from the bearer token, the
/// email only pre-fills the checkout, and `productId` is informational (the
/// seed app sends it; the variant alone decides what is sold).
public struct CreateCheckoutRequest: Codable, Sendable, Hashable {
    public var customerEmail: String?
    public var variantId: String
    public var productId: String?
    /// A campaign tag (the paywall's `?ref=`): 1–64 of `A-Z a-z 0-9 . _ ~ -`;
    /// kept on the checkout and its purchase for `storefront report`.
    public var ref: String?
    /// A promotion (discount) code the provider applies at checkout; see ``isValidPromotionCode(_:)``.
    public var promotionCode: String?
    /// Free days before the first charge, 1…730, for a subscription, where the provider lets a checkout set it.
    public var trialDays: Int?
    /// The buyer's language as a BCP 47 tag (``CheckoutLocale``); absent: the `Accept-Language` header's.
    public var locale: String?
    /// The App Store storefront the app runs in, as StoreKit reports it (`USA`,
    /// `NLD`): checked against the link-out policy and kept on the checkout.
    public var storefront: String?
    /// The external purchase token StoreKit gave the app where the storefront
    /// needs Apple's entitlement (``ExternalPurchaseToken``).
    public var externalPurchaseToken: String?

    public init(
        customerEmail: String?, variantId: String, productId: String?, ref: String? = nil, promotionCode: String? = nil,
        trialDays: Int? = nil, locale: String? = nil, storefront: String? = nil, externalPurchaseToken: String? = nil
    ) {
        self.customerEmail = customerEmail
        self.variantId = variantId
        self.productId = productId
        self.ref = ref
        self.promotionCode = promotionCode
        self.trialDays = trialDays
        self.locale = locale
        self.storefront = storefront
        self.externalPurchaseToken = externalPurchaseToken
    }

    /// Whether ``ref`` is absent or well-formed.
    public var hasValidRef: Bool {
        guard let ref else { return true }
        return Self.isValidRef(ref)
    }

    /// A campaign tag's shape: 1–64 unreserved URL characters.
    public static func isValidRef(_ ref: String) -> Bool {
        !ref.isEmpty && ref.utf8.count <= 64
            && ref.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || [0x2D, 0x2E, 0x5F, 0x7E].contains($0)
            }
    }

    /// The parsed variant id; nil when it is not a ``CatalogID``.
    public var catalogVariantID: CatalogID? { CatalogID(variantId) }
    /// The parsed product id; nil when absent or malformed.
    public var catalogProductID: CatalogID? { productId.flatMap(CatalogID.init) }
    /// The validated email, nil when absent/empty or malformed (check ``hasInvalidEmail``).
    public var email: EmailAddress? { customerEmail.flatMap(EmailAddress.init) }
    /// True when an email was sent but does not look like one (answer 400).
    public var hasInvalidEmail: Bool {
        guard let text = customerEmail?.trimmingWhitespace(), !text.isEmpty else { return false }
        return EmailAddress(text) == nil
    }
}

/// `POST /api/create-checkout` answer: `{"success":true,"checkoutUrl":"https://…"}`
/// plus the extras `checkoutId`, `provider`, `expiresAt` (omitted when unknown).
public struct CreateCheckoutResponse: Codable, Sendable, Hashable {
    public var success: Bool
    public var checkoutUrl: String
    /// Storefront's checkout id (also sent to the provider as `storefront_checkout_id`).
    public var checkoutId: String?
    public var provider: Provider?
    public var expiresAt: Date?

    enum CodingKeys: String, CodingKey { case success, checkoutUrl, checkoutId, provider, expiresAt }

    public init(checkoutUrl: String, checkoutId: String? = nil, provider: Provider? = nil, expiresAt: Date? = nil) {
        success = true
        self.checkoutUrl = checkoutUrl
        self.checkoutId = checkoutId
        self.provider = provider
        self.expiresAt = expiresAt
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        success = try c.decode(Bool.self, forKey: .success)
        checkoutUrl = try c.decode(String.self, forKey: .checkoutUrl)
        checkoutId = try c.decodeIfPresent(String.self, forKey: .checkoutId)
        provider = try c.decodeIfPresent(Provider.self, forKey: .provider)
        expiresAt = try c.decodeTimestamp(forKey: .expiresAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(success, forKey: .success)
        try c.encode(checkoutUrl, forKey: .checkoutUrl)
        try c.encodeIfPresent(checkoutId, forKey: .checkoutId)
        try c.encodeIfPresent(provider, forKey: .provider)
        if let expiresAt { try c.encode(Timestamp.format(expiresAt), forKey: .expiresAt) }
    }
}

/// `POST /api/subscription/cancel` body: `{"subscription_code":"…","email_token":"…"}`.
/// `email_token` is Paystack's and may be absent for Lemon Squeezy.
public struct CancelSubscriptionRequest: Codable, Sendable, Hashable {
    public var subscriptionCode: String
    public var emailToken: String?

    enum CodingKeys: String, CodingKey {
        case subscriptionCode = "subscription_code"
        case emailToken = "email_token"
    }

    public init(subscriptionCode: String, emailToken: String?) {
        self.subscriptionCode = subscriptionCode
        self.emailToken = emailToken
    }
}

/// Successful answer to cancel (and other commands): `{"success":true,"message":"…"}`.
public struct CommandAcceptedResponse: Codable, Sendable, Hashable {
    public var success: Bool
    public var message: String

    public init(message: String) {
        success = true
        self.message = message
    }
}

/// Every error body: `{"success":false,"error":"<human readable>","code":"<stable code>"}`
/// (`code` is additive to the seed tutorials' shape; see the OpenAPI
/// document's `Error` for the known codes).
public struct APIErrorResponse: Codable, Sendable, Hashable, Error {
    public var success: Bool
    public var error: String
    /// Machine-readable and stable (`unknown_variant`, `rate_limited`, …); nil from servers that predate it.
    public var code: String?

    public init(_ error: String, code: String? = nil) {
        success = false
        self.error = error
        self.code = code
    }
}
