import Foundation

/// Something the app can sell: one entry of `GET /api/products`.
///
/// The server sends it JSON:API style,
/// `{"type":"products","id":"ls_1","variantId":"ls_11","attributes":{"name":…,"price_formatted":…}}`;
/// StorefrontKit flattens the attributes into properties. ``id`` and
/// ``variantID`` are opaque catalog ids, unique across providers; pass
/// ``variantID`` (or the product itself) to
/// ``StorefrontClient/createCheckout(for:email:)``.
public struct Product: Codable, Hashable, Sendable, Identifiable {
    /// The catalog id of the product (`ls_310456`, `ps_PLN_…`).
    public var id: String
    /// The catalog id of the variant (price) to check out.
    public var variantID: String
    /// The JSON:API resource type, `products`.
    public var type: String
    /// Display name.
    public var name: String
    /// The provider's description, which may be HTML (Lemon Squeezy's is).
    public var descriptionHTML: String
    /// The description as plain text, for labels that cannot render HTML.
    public var descriptionText: String
    /// The price as the provider formats it (`$9.99`, `₦5,000.00`).
    public var priceFormatted: String
    /// The provider's own buy link, when it has one (not needed for checkouts through Storefront).
    public var buyNowURL: URL?
    /// The price in the currency's minor units (cents, kobo).
    public var price: Int64
    /// ISO-4217 currency code (`USD`, `NGN`).
    public var currency: String
    /// The billing period's unit (`day`, `week`, `month`, `year`) for subscriptions; nil for one-time purchases.
    public var interval: String?
    /// How many ``interval`` units one period lasts (3 with `month` is quarterly); nil for one-time purchases.
    public var intervalCount: Int?
    /// Who sells it.
    public var provider: Provider
    /// A test-mode product (no real money).
    public var isTestMode: Bool
    /// The unit of the free trial the variant itself starts with (`day`,
    /// `week`, `month`, `year`; a Lemon Squeezy variant's trial); nil without one.
    public var trialInterval: String?
    /// How many ``trialInterval`` units the trial lasts; nil without one.
    public var trialIntervalCount: Int?
    /// Whether a checkout of it takes a ``CheckoutOffer/promotionCode``.
    public var acceptsPromotionCodes: Bool
    /// Whether a checkout of it takes ``CheckoutOffer/trialDays`` (a
    /// subscription whose provider lets a checkout set the trial).
    public var checkoutSetsTrial: Bool

    /// Whether buying it starts a subscription rather than a one-time purchase.
    public var isSubscription: Bool { interval != nil }

    /// Creates a product, e.g. for previews and tests.
    public init(
        id: String, variantID: String, name: String, priceFormatted: String, provider: Provider,
        descriptionHTML: String = "", descriptionText: String = "", buyNowURL: URL? = nil, price: Int64 = 0,
        currency: String = "", interval: String? = nil, intervalCount: Int? = nil, isTestMode: Bool = false,
        type: String = "products", trialInterval: String? = nil, trialIntervalCount: Int? = nil, acceptsPromotionCodes: Bool = false,
        checkoutSetsTrial: Bool = false
    ) {
        self.id = id
        self.variantID = variantID
        self.type = type
        self.name = name
        self.descriptionHTML = descriptionHTML
        self.descriptionText = descriptionText
        self.priceFormatted = priceFormatted
        self.buyNowURL = buyNowURL
        self.price = price
        self.currency = currency
        self.interval = interval
        self.intervalCount = intervalCount
        self.provider = provider
        self.isTestMode = isTestMode
        self.trialInterval = trialInterval
        self.trialIntervalCount = trialIntervalCount
        self.acceptsPromotionCodes = acceptsPromotionCodes
        self.checkoutSetsTrial = checkoutSetsTrial
    }

    enum CodingKeys: String, CodingKey { case type, id, variantId, attributes }

    enum AttributeKeys: String, CodingKey {
        case name, description, price, currency, interval, provider
        case priceFormatted = "price_formatted", buyNowURL = "buy_now_url", descriptionText = "description_text"
        case intervalCount = "interval_count", testMode = "test_mode"
        case trialInterval = "trial_interval", trialIntervalCount = "trial_interval_count"
        case acceptsPromotionCodes = "accepts_promotion_codes", checkoutSetsTrial = "checkout_sets_trial"
    }

    /// Decodes the server's JSON:API-style entry.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        type = try c.decodeIfPresent(String.self, forKey: .type) ?? "products"
        id = try c.decode(String.self, forKey: .id)
        variantID = try c.decode(String.self, forKey: .variantId)
        let a = try c.nestedContainer(keyedBy: AttributeKeys.self, forKey: .attributes)
        // The contract's four strings are never null; tolerate it anyway.
        name = try a.decodeIfPresent(String.self, forKey: .name) ?? ""
        descriptionHTML = try a.decodeIfPresent(String.self, forKey: .description) ?? ""
        priceFormatted = try a.decodeIfPresent(String.self, forKey: .priceFormatted) ?? ""
        buyNowURL = try a.decodeURL(forKey: .buyNowURL)
        descriptionText = try a.decodeIfPresent(String.self, forKey: .descriptionText) ?? ""
        price = try a.decodeIfPresent(Int64.self, forKey: .price) ?? 0
        currency = try a.decodeIfPresent(String.self, forKey: .currency) ?? ""
        interval = try a.decodeIfPresent(String.self, forKey: .interval)
        intervalCount = try a.decodeIfPresent(Int.self, forKey: .intervalCount)
        provider = try a.decode(Provider.self, forKey: .provider)
        isTestMode = try a.decodeIfPresent(Bool.self, forKey: .testMode) ?? false
        // Absent from servers before offers at checkout: no trial, no codes.
        trialInterval = try a.decodeIfPresent(String.self, forKey: .trialInterval)
        trialIntervalCount = try a.decodeIfPresent(Int.self, forKey: .trialIntervalCount)
        acceptsPromotionCodes = try a.decodeIfPresent(Bool.self, forKey: .acceptsPromotionCodes) ?? false
        checkoutSetsTrial = try a.decodeIfPresent(Bool.self, forKey: .checkoutSetsTrial) ?? false
    }

    /// Encodes in the server's shape (so a stored product decodes again).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(type, forKey: .type)
        try c.encode(id, forKey: .id)
        try c.encode(variantID, forKey: .variantId)
        var a = c.nestedContainer(keyedBy: AttributeKeys.self, forKey: .attributes)
        try a.encode(name, forKey: .name)
        try a.encode(descriptionHTML, forKey: .description)
        try a.encode(priceFormatted, forKey: .priceFormatted)
        try a.encode(buyNowURL?.absoluteString ?? "", forKey: .buyNowURL)
        try a.encode(descriptionText, forKey: .descriptionText)
        try a.encode(price, forKey: .price)
        try a.encode(currency, forKey: .currency)
        try a.encode(interval, forKey: .interval)
        try a.encode(intervalCount, forKey: .intervalCount)
        try a.encode(provider, forKey: .provider)
        try a.encode(isTestMode, forKey: .testMode)
        try a.encode(trialInterval, forKey: .trialInterval)
        try a.encode(trialIntervalCount, forKey: .trialIntervalCount)
        try a.encode(acceptsPromotionCodes, forKey: .acceptsPromotionCodes)
        try a.encode(checkoutSetsTrial, forKey: .checkoutSetsTrial)
    }
}

/// `{"success":true,"products":{"data":[…]}}`.
struct ProductListBody: Decodable {
    struct Page: Decodable { var data: [Product] }
    var products: Page
}

/// `{"success":true,"product":{…}}`, the answer of `GET /api/products/{id}`.
struct ProductBody: Decodable {
    var product: Product
}
