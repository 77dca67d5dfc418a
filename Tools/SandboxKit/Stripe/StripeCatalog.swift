/// The emulated Stripe's products and prices (built in; `SANDBOX_CATALOG_FILE`
/// covers the other two providers only).
struct StripeCatalog: Sendable {
    struct Product: Sendable {
        let id: String
        let name: String
        let description: String?
        let active: Bool
        let defaultPriceID: String?
    }

    struct Price: Sendable {
        let id: String
        let productID: String
        let unitAmount: Int
        let currency: String
        /// nil for a one-time price; `month` or `year` otherwise.
        let interval: String?
        let intervalCount: Int
        let active: Bool
        let lookupKey: String?
        var isRecurring: Bool { interval != nil }
    }

    let products: [Product]
    let prices: [Price]
    /// What `GET /v1/promotion_codes` lists and a session's `discounts` may name.
    var promotionCodes: [PromotionCode] = []

    func product(_ id: String) -> Product? { products.first { $0.id == id } }
    func price(_ id: String) -> Price? { prices.first { $0.id == id } }

    /// Five products (one inactive) and six prices, enough to page with
    /// `limit=2`, and four promotion codes (``standardPromotionCodes``).
    static let standard = StripeCatalog(
        products: [
            Product(
                id: "prod_SbxProIcons", name: "Pro Icons Pack", description: "600 hand-drawn icons for iOS and Android.", active: true,
                defaultPriceID: "price_SbxProIcons"),
            Product(
                id: "prod_SbxPremium", name: "Premium", description: "All premium features, billed monthly or yearly.", active: true,
                defaultPriceID: "price_SbxPremiumMonthly"),
            Product(
                id: "prod_SbxWallpapers", name: "Wallpaper Collection", description: "120 wallpapers in 4K.", active: true,
                defaultPriceID: "price_SbxWallpapers"),
            Product(
                id: "prod_SbxBetaLab", name: "Beta Lab", description: "Unreleased experiments.", active: false, defaultPriceID: "price_SbxBetaLab"),
            Product(id: "prod_SbxTeam", name: "Team", description: nil, active: true, defaultPriceID: "price_SbxTeamYearly"),
        ],
        prices: [
            Price(
                id: "price_SbxProIcons", productID: "prod_SbxProIcons", unitAmount: 999, currency: "usd", interval: nil, intervalCount: 1,
                active: true,
                lookupKey: "pro_icons"),
            Price(
                id: "price_SbxPremiumMonthly", productID: "prod_SbxPremium", unitAmount: 499, currency: "usd", interval: "month", intervalCount: 1,
                active: true, lookupKey: "premium_monthly"),
            Price(
                id: "price_SbxPremiumYearly", productID: "prod_SbxPremium", unitAmount: 4999, currency: "usd", interval: "year", intervalCount: 1,
                active: true, lookupKey: "premium_yearly"),
            Price(
                id: "price_SbxWallpapers", productID: "prod_SbxWallpapers", unitAmount: 299, currency: "usd", interval: nil, intervalCount: 1,
                active: true, lookupKey: nil),
            Price(
                id: "price_SbxBetaLab", productID: "prod_SbxBetaLab", unitAmount: 199, currency: "usd", interval: nil, intervalCount: 1,
                active: false,
                lookupKey: nil),
            Price(
                id: "price_SbxTeamYearly", productID: "prod_SbxTeam", unitAmount: 19_999, currency: "usd", interval: "year", intervalCount: 1,
                active: true, lookupKey: "team_yearly"),
        ], promotionCodes: standardPromotionCodes)
}
