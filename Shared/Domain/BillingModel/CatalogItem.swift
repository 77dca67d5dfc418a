/// One purchasable thing in provider-neutral form: a Lemon Squeezy variant of
/// a product, or a Paystack plan. The catalog service builds these from the
/// provider APIs and renders them as ``ProductResource``.
public struct CatalogItem: Codable, Sendable, Hashable {
    public var provider: Provider
    /// Provider product id (Lemon Squeezy product id; Paystack: the plan code, since a plan is the product).
    public var productID: String
    /// Provider variant id (Lemon Squeezy variant id; Paystack: the plan code).
    public var variantID: String
    public var name: String
    /// Description exactly as the provider gave it (HTML for Lemon Squeezy).
    public var descriptionHTML: String
    /// ``descriptionHTML`` as plain text.
    public var descriptionText: String
    /// Price in minor units of ``currency``.
    public var price: Int64
    /// ISO-4217, uppercase.
    public var currency: String
    /// Display price; the provider's own string when it has one, else ``MoneyFormatter``.
    public var formattedPrice: String
    /// Billing period for subscriptions; nil for one-time purchases.
    public var interval: BillingInterval?
    /// The provider's shareable checkout link, when it has one (Lemon Squeezy
    /// `buy_now_url`, Paystack plan `hosted_page_url`).
    public var buyNowURL: String?
    /// Whether the provider marks the item as test-mode data.
    public var testMode: Bool
    /// The free trial a subscription starts with, when the item itself sets
    /// one (Lemon Squeezy's variant `has_free_trial`, `trial_interval`,
    /// `trial_interval_count`); nil when it has none.
    public var trial: BillingInterval?

    public init(
        provider: Provider, productID: String, variantID: String, name: String,
        descriptionHTML: String = "", descriptionText: String? = nil, price: Int64, currency: String,
        formattedPrice: String? = nil, interval: BillingInterval? = nil, buyNowURL: String? = nil, testMode: Bool = false,
        trial: BillingInterval? = nil
    ) {
        self.provider = provider
        self.productID = productID
        self.variantID = variantID
        self.name = name
        self.descriptionHTML = descriptionHTML
        self.descriptionText = descriptionText ?? HTMLText.plainText(fromHTML: descriptionHTML)
        self.price = price
        self.currency = currency.uppercased()
        self.formattedPrice = formattedPrice ?? MoneyFormatter.format(minorUnits: price, currency: currency)
        self.interval = interval
        self.buyNowURL = buyNowURL
        self.testMode = testMode
        self.trial = interval == nil ? nil : trial
    }

    /// True for subscriptions (an interval is set).
    public var isSubscription: Bool { interval != nil }

    /// Opaque product id for apps (`ls_<product>` / `ps_<plan code>`); nil if the raw id is unusable.
    public var catalogProductID: CatalogID? { CatalogID(provider: provider, rawID: productID) }
    /// Opaque variant id for apps (`ls_<variant>` / `ps_<plan code>`); nil if the raw id is unusable.
    public var catalogVariantID: CatalogID? { CatalogID(provider: provider, rawID: variantID) }
}
