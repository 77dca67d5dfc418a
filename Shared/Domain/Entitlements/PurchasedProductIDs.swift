import BillingModel

/// How the entitlement answer names what was bought (`product_id`): the id
/// the catalog lists it under (``CatalogEntryIDs``), so `ls_2.3` ("Premium –
/// Yearly") is never answered as `ls_2`, which the catalog may use for
/// "Premium – Monthly".
///
/// With a live ``catalog`` (the checkout service's catalog cache) the
/// answer follows the catalog as it is now. Without one (the operator CLI),
/// or when the catalog does not know the variant (not loaded yet, or removed
/// since), it is ``CatalogEntryIDs/fallbackID(provider:productID:variantID:)``:
/// `ls_<product>.<variant>`, deterministic and never another entry's id.
///
/// Two values are equal when they ask the same catalog object (or none).
public struct PurchasedProductIDs: Sendable, Hashable {
    /// The live catalog asked first; nil: always the fallback.
    public let catalog: (any CatalogEntryIDSource)?

    public init(catalog: (any CatalogEntryIDSource)? = nil) {
        self.catalog = catalog
    }

    /// The catalog id of the purchase of `variant` of `product`; nil when no
    /// id can be formed from them.
    public func id(_ provider: Provider, _ product: String?, _ variant: String?) -> String? {
        if let catalog, let product, let variant, let id = catalog.catalogEntryID(provider: provider, productID: product, variantID: variant) {
            return id.description
        }
        return CatalogEntryIDs.fallbackID(provider: provider, productID: product, variantID: variant)?.description
    }

    public static func == (lhs: PurchasedProductIDs, rhs: PurchasedProductIDs) -> Bool {
        lhs.catalog.map(ObjectIdentifier.init) == rhs.catalog.map(ObjectIdentifier.init)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(catalog.map(ObjectIdentifier.init))
    }
}
