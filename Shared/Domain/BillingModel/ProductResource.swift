/// `GET /api/products` response: `{"success":true,"products":{"data":[…]}}`.
public struct ProductListResponse: Codable, Sendable, Hashable {
    public var success: Bool
    public var products: ProductPage

    public init(products: [ProductResource]) {
        success = true
        self.products = ProductPage(data: products)
    }

    /// Builds the response from catalog items; items whose ids cannot form a ``CatalogID`` are skipped.
    public init(items: [CatalogItem]) {
        self.init(products: items.compactMap(ProductResource.init(item:)))
    }
}

/// The `products` object of ``ProductListResponse`` (JSON:API-like, as the seed tutorial expects).
public struct ProductPage: Codable, Sendable, Hashable {
    public var data: [ProductResource]
    public init(data: [ProductResource]) { self.data = data }
}

/// One product as apps see it:
/// `{"type":"products","id":"ls_1","variantId":"ls_11","attributes":{…}}`.
/// `id` and `variantId` are ``CatalogID`` strings, never empty.
public struct ProductResource: Codable, Sendable, Hashable, Identifiable {
    public var type: String
    public var id: String
    public var variantId: String
    public var attributes: ProductAttributes

    public init(type: String = "products", id: CatalogID, variantId: CatalogID, attributes: ProductAttributes) {
        self.type = type
        self.id = id.description
        self.variantId = variantId.description
        self.attributes = attributes
    }

    /// Nil when the item's ids are not valid catalog ids.
    public init?(item: CatalogItem) {
        guard let product = item.catalogProductID, let variant = item.catalogVariantID else { return nil }
        self.init(id: product, variantId: variant, attributes: ProductAttributes(item: item))
    }

    /// The parsed ``id``; nil if it was not produced by ``CatalogID``.
    public var catalogProductID: CatalogID? { CatalogID(id) }
    /// The parsed ``variantId``.
    public var catalogVariantID: CatalogID? { CatalogID(variantId) }
}

/// Product attributes. The four contract fields (`name`, `description`,
/// `price_formatted`, `buy_now_url`) are always strings (empty when unknown);
/// the rest are Storefront extras: `description_text`, `price` (minor units),
/// `currency`, `interval` (`day|week|month|year|hour` or null), `interval_count`
/// (null for one-time), `provider`, `test_mode`, the variant's own trial
/// (`trial_interval`, `trial_interval_count`, null without one), and what a
/// checkout of it may ask (`accepts_promotion_codes`, `checkout_sets_trial`:
/// traits of its provider).
public struct ProductAttributes: Codable, Sendable, Hashable {
    public var name: String
    public var description: String
    public var priceFormatted: String
    public var buyNowURL: String
    public var descriptionText: String
    public var price: Int64
    public var currency: String
    public var interval: BillingInterval.Unit?
    public var intervalCount: Int?
    public var provider: Provider
    public var testMode: Bool
    public var trialInterval: BillingInterval.Unit?
    public var trialIntervalCount: Int?
    /// Whether `POST /api/create-checkout` takes a `promotionCode` for it.
    public var acceptsPromotionCodes: Bool
    /// Whether `POST /api/create-checkout` takes `trialDays` for it (a subscription whose provider lets a checkout set one).
    public var checkoutSetsTrial: Bool

    enum CodingKeys: String, CodingKey {
        case name, description, price, currency, interval, provider
        case priceFormatted = "price_formatted"
        case buyNowURL = "buy_now_url"
        case descriptionText = "description_text"
        case intervalCount = "interval_count"
        case testMode = "test_mode"
        case trialInterval = "trial_interval"
        case trialIntervalCount = "trial_interval_count"
        case acceptsPromotionCodes = "accepts_promotion_codes"
        case checkoutSetsTrial = "checkout_sets_trial"
    }

    public init(
        name: String, description: String, priceFormatted: String, buyNowURL: String, descriptionText: String,
        price: Int64, currency: String, interval: BillingInterval?, provider: Provider, testMode: Bool, trial: BillingInterval? = nil,
        acceptsPromotionCodes: Bool = false, checkoutSetsTrial: Bool = false
    ) {
        self.name = name
        self.description = description
        self.priceFormatted = priceFormatted
        self.buyNowURL = buyNowURL
        self.descriptionText = descriptionText
        self.price = price
        self.currency = currency
        self.interval = interval?.unit
        self.intervalCount = interval?.count
        self.provider = provider
        self.testMode = testMode
        trialInterval = trial?.unit
        trialIntervalCount = trial?.count
        self.acceptsPromotionCodes = acceptsPromotionCodes
        self.checkoutSetsTrial = checkoutSetsTrial
    }

    public init(item: CatalogItem) {
        let traits = item.provider.traits
        self.init(
            name: item.name, description: item.descriptionHTML, priceFormatted: item.formattedPrice,
            buyNowURL: item.buyNowURL ?? "", descriptionText: item.descriptionText, price: item.price,
            currency: item.currency, interval: item.interval, provider: item.provider, testMode: item.testMode, trial: item.trial,
            acceptsPromotionCodes: traits.checkoutTakesPromotionCodes, checkoutSetsTrial: item.isSubscription && traits.checkoutSetsTheTrial)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // Lenient on purpose: a null string field decodes as "" so the
        // "never null" rule holds even for hand-made input.
        name = try c.decodeIfPresent(String.self, forKey: .name) ?? ""
        description = try c.decodeIfPresent(String.self, forKey: .description) ?? ""
        priceFormatted = try c.decodeIfPresent(String.self, forKey: .priceFormatted) ?? ""
        buyNowURL = try c.decodeIfPresent(String.self, forKey: .buyNowURL) ?? ""
        descriptionText = try c.decodeIfPresent(String.self, forKey: .descriptionText) ?? ""
        price = try c.decodeIfPresent(Int64.self, forKey: .price) ?? 0
        currency = try c.decodeIfPresent(String.self, forKey: .currency) ?? ""
        interval = try c.decodeIfPresent(BillingInterval.Unit.self, forKey: .interval)
        intervalCount = try c.decodeIfPresent(Int.self, forKey: .intervalCount)
        provider = try c.decode(Provider.self, forKey: .provider)
        testMode = try c.decodeIfPresent(Bool.self, forKey: .testMode) ?? false
        trialInterval = try c.decodeIfPresent(BillingInterval.Unit.self, forKey: .trialInterval)
        trialIntervalCount = try c.decodeIfPresent(Int.self, forKey: .trialIntervalCount)
        acceptsPromotionCodes = try c.decodeIfPresent(Bool.self, forKey: .acceptsPromotionCodes) ?? false
        checkoutSetsTrial = try c.decodeIfPresent(Bool.self, forKey: .checkoutSetsTrial) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(description, forKey: .description)
        try c.encode(priceFormatted, forKey: .priceFormatted)
        try c.encode(buyNowURL, forKey: .buyNowURL)
        try c.encode(descriptionText, forKey: .descriptionText)
        try c.encode(price, forKey: .price)
        try c.encode(currency, forKey: .currency)
        try c.encode(interval, forKey: .interval) // explicit null for one-time items
        try c.encode(intervalCount, forKey: .intervalCount)
        try c.encode(provider, forKey: .provider)
        try c.encode(testMode, forKey: .testMode)
        try c.encode(trialInterval, forKey: .trialInterval) // explicit null without a trial
        try c.encode(trialIntervalCount, forKey: .trialIntervalCount)
        try c.encode(acceptsPromotionCodes, forKey: .acceptsPromotionCodes)
        try c.encode(checkoutSetsTrial, forKey: .checkoutSetsTrial)
    }
}
