import BillingModel

extension PriceBook {
    /// The subscription prices of a catalog answer (`GET /api/products`):
    /// every product with an interval, by its variant's raw provider id.
    /// One-time products are left out: they are never MRR.
    public init(catalog: ProductListResponse) {
        self.init()
        for product in catalog.products.data {
            let attributes = product.attributes
            guard let unit = attributes.interval, let variant = product.catalogVariantID else { continue }
            let interval = BillingInterval(unit: unit, count: attributes.intervalCount ?? 1)
            set(
                RecurringPrice(amount: attributes.price, currency: attributes.currency, interval: interval), provider: variant.provider,
                variantID: variant.rawID)
        }
    }

    /// The subscription prices of catalog items as a provider client lists
    /// them (the reconciler's revenue gauges fetch them so): every item with
    /// an interval, by its raw variant id. One-time items are left out.
    public init(items: [CatalogItem]) {
        self.init()
        for item in items {
            guard let interval = item.interval else { continue }
            set(RecurringPrice(amount: item.price, currency: item.currency, interval: interval), provider: item.provider, variantID: item.variantID)
        }
    }
}
