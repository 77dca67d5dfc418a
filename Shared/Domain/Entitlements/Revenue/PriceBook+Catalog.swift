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
}
