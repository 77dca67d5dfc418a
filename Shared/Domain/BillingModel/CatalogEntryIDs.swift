/// The one rule for which catalog id names a purchasable thing, shared by the
/// catalog's list (`GET /api/products`, each entry's `id`) and the
/// entitlement answer (`product_id`: the entry that was bought).
///
/// For (provider, product, variant), given the variants the catalog lists for
/// that product:
/// - one variant: the product's id, `ls_<product>` (`ps_<plan code>`; a
///   Paystack plan is its own product and only variant), so the common case
///   reads naturally;
/// - several variants (monthly and yearly, say): `ls_<product>.<variant>`,
///   one id per variant, so no two entries share an id.
///
/// When the catalog does not know the variant (not loaded yet, or the product
/// or variant since removed), ``fallbackID(provider:productID:variantID:)``
/// names it `ls_<product>.<variant>` whenever the two ids differ: the one form
/// that can never be another entry's id (`ls_<product>` may be what the
/// catalog calls a different variant of the product), at the cost of
/// reading differently from a single-variant entry until the catalog knows it.
public struct CatalogEntryIDs: Sendable {
    struct ProductKey: Hashable, Sendable {
        let provider: Provider
        let productID: String
    }

    /// Distinct variant ids per product.
    private let variants: [ProductKey: Set<String>]

    /// The rule over `items`: a product has as many variants as distinct
    /// variant ids among them (items of every provider may be mixed).
    public init(_ items: some Sequence<CatalogItem>) {
        var variants: [ProductKey: Set<String>] = [:]
        for item in items {
            variants[ProductKey(provider: item.provider, productID: item.productID), default: []].insert(item.variantID)
        }
        self.variants = variants
    }

    /// The id `item` is listed under; nil when its ids cannot form a ``CatalogID``.
    public func id(of item: CatalogItem) -> CatalogID? {
        Self.id(
            provider: item.provider, productID: item.productID, variantID: item.variantID, variantCount: variantCount(item.provider, item.productID))
    }

    /// The id the catalog lists (provider, product, variant) under; nil when
    /// that variant of that product is not among the items (or its ids cannot
    /// form a ``CatalogID``).
    public func id(provider: Provider, productID: String, variantID: String) -> CatalogID? {
        guard let known = variants[ProductKey(provider: provider, productID: productID)], known.contains(variantID) else { return nil }
        return Self.id(provider: provider, productID: productID, variantID: variantID, variantCount: known.count)
    }

    /// How many distinct variants `product` has among the items (0 when none).
    public func variantCount(_ provider: Provider, _ productID: String) -> Int {
        variants[ProductKey(provider: provider, productID: productID)]?.count ?? 0
    }

    /// The rule itself: the product's id with one variant, `<product>.<variant>` with several.
    public static func id(provider: Provider, productID: String, variantID: String, variantCount: Int) -> CatalogID? {
        variantCount > 1 ? CatalogID(provider: provider, rawID: productID + "." + variantID) : CatalogID(provider: provider, rawID: productID)
    }

    /// The id for a purchase the catalog does not know (see the type's notes):
    /// `<product>.<variant>` when both are known and differ, else the one
    /// that is known (a Paystack plan, whose product and variant are the same
    /// code); nil when neither forms a ``CatalogID``.
    public static func fallbackID(provider: Provider, productID: String?, variantID: String?) -> CatalogID? {
        let product = productID.flatMap { $0.isEmpty ? nil : $0 }
        let variant = variantID.flatMap { $0.isEmpty ? nil : $0 }
        if let product, let variant, product != variant, let id = CatalogID(provider: provider, rawID: product + "." + variant) {
            return id
        }
        for raw in [product, variant].compactMap({ $0 }) {
            if let id = CatalogID(provider: provider, rawID: raw) { return id }
        }
        return nil
    }
}

/// Something that knows the catalog as it is now and can say which id it
/// lists a purchase under (the checkout's `CatalogCache`), so the entitlement
/// answer names the entry that was bought.
///
/// A class: a live catalog is one shared object, and two resolvers asking the
/// same one are the same (see `EntitlementResolver`'s equality).
public protocol CatalogEntryIDSource: AnyObject, Sendable {
    /// The id the catalog lists (provider, product, variant) under, or nil
    /// when it does not know that variant (not loaded, or removed since).
    func catalogEntryID(provider: Provider, productID: String, variantID: String) -> CatalogID?
}
