extension SandboxCatalog {
    /// A realistic default: seven Lemon Squeezy products (one draft, two with a lone
    /// `pending` "Default" variant, one monthly/yearly subscription whose yearly
    /// variant has a 14-day free trial), five discount codes, and five Paystack
    /// plans in NGN, enough to page with small page sizes.
    public static let standard = SandboxCatalog(
        lemonSqueezy: LemonSqueezyCatalog(
            store: .init(id: 1, name: "Storefront Sandbox", slug: "storefront-sandbox", currency: "USD"),
            products: [
                .init(
                    id: 1, name: "Pro Icons Pack", slug: "pro-icons-pack", description: "<p>600 hand-drawn icons for iOS and Android.</p>",
                    status: "published",
                    variants: [
                        .init(
                            id: 1, name: "Default", slug: "pro-icons-pack-default", price: 999, isSubscription: false, interval: nil,
                            intervalCount: nil, status: "pending", sort: 0)
                    ]),
                .init(
                    id: 2, name: "Premium", slug: "premium", description: "<p>All premium features, billed monthly or yearly.</p>",
                    status: "published",
                    variants: [
                        .init(
                            id: 2, name: "Monthly", slug: "premium-monthly", price: 499, isSubscription: true, interval: "month", intervalCount: 1,
                            status: "published", sort: 1),
                        .init(
                            id: 3, name: "Yearly", slug: "premium-yearly", price: 4999, isSubscription: true, interval: "year", intervalCount: 1,
                            status: "published", sort: 2, trialInterval: "day", trialIntervalCount: 14),
                    ]),
                .init(
                    id: 3, name: "Beta Lab", slug: "beta-lab", description: "<p>Unreleased experiments.</p>", status: "draft",
                    variants: [
                        .init(
                            id: 4, name: "Default", slug: "beta-lab-default", price: 199, isSubscription: false, interval: nil, intervalCount: nil,
                            status: "pending", sort: 0)
                    ]),
                .init(
                    id: 4, name: "Wallpaper Collection", slug: "wallpaper-collection", description: "<p>120 wallpapers in 4K.</p>",
                    status: "published",
                    variants: [
                        .init(
                            id: 5, name: "Default", slug: "wallpaper-collection-default", price: 299, isSubscription: false, interval: nil,
                            intervalCount: nil, status: "pending", sort: 0)
                    ]),
                .init(
                    id: 5, name: "Sound Effects Bundle", slug: "sound-effects-bundle", description: "<p>300 UI sounds.</p>", status: "published",
                    variants: [
                        .init(
                            id: 6, name: "Standard", slug: "sound-effects-standard", price: 1499, isSubscription: false, interval: nil,
                            intervalCount: nil, status: "published", sort: 1),
                        .init(
                            id: 7, name: "Extended licence", slug: "sound-effects-extended", price: 2999, isSubscription: false, interval: nil,
                            intervalCount: nil, status: "published", sort: 2),
                    ]),
                .init(
                    id: 6, name: "Dark Theme", slug: "dark-theme", description: "<p>A dark theme for the app.</p>", status: "published",
                    variants: [
                        .init(
                            id: 8, name: "Default", slug: "dark-theme-default", price: 199, isSubscription: false, interval: nil, intervalCount: nil,
                            status: "pending", sort: 0)
                    ]),
                .init(
                    id: 7, name: "Supporter Membership", slug: "supporter-membership", description: "<p>Support development every month.</p>",
                    status: "published",
                    variants: [
                        .init(
                            id: 9, name: "Default", slug: "supporter-membership-default", price: 299, isSubscription: true, interval: "month",
                            intervalCount: 1, status: "pending", sort: 0)
                    ]),
            ],
            // 20 % off anything, $5 off, one that expired, one for the icons only, one not yet published.
            discounts: [
                .init(id: 1, name: "Spring sale", code: "SPRING20", amount: 20, amountType: "percent", status: "published"),
                .init(id: 2, name: "Five off", code: "FIVEOFF", amount: 500, amountType: "fixed", status: "published"),
                .init(
                    id: 3, name: "Last year", code: "EXPIRED10", amount: 10, amountType: "percent", status: "published",
                    expiresAt: "2020-01-01T00:00:00Z"),
                .init(id: 4, name: "Icons half price", code: "ICONS50", amount: 50, amountType: "percent", status: "published", variantIDs: [1]),
                .init(id: 5, name: "Draft", code: "DRAFT15", amount: 15, amountType: "percent", status: "draft"),
            ]
        ),
        paystack: PaystackCatalog(
            integration: 100_032,
            plans: [
                .init(
                    id: 101, name: "Premium Monthly", planCode: "PLN_sbxpremmonth01", description: "All premium features, billed monthly",
                    amount: 250_000, interval: "monthly", currency: "NGN"),
                .init(
                    id: 102, name: "Premium Annual", planCode: "PLN_sbxpremannual1", description: "All premium features, billed yearly",
                    amount: 2_500_000, interval: "annually", currency: "NGN"),
                .init(
                    id: 103, name: "Basic Monthly", planCode: "PLN_sbxbasicmonth1", description: nil, amount: 100_000, interval: "monthly",
                    currency: "NGN"),
                .init(
                    id: 104, name: "Basic Annual", planCode: "PLN_sbxbasicannua1", description: nil, amount: 1_000_000, interval: "annually",
                    currency: "NGN"),
                .init(
                    id: 105, name: "Supporter Weekly", planCode: "PLN_sbxsupportwk01", description: "Weekly supporter tier", amount: 50_000,
                    interval: "weekly", currency: "NGN"),
            ]
        )
    )
}
