import Foundation
import BillingModel

/// Turns provider items into app-facing resources and encodes every body of a
/// ``CatalogSnapshot``.
enum CatalogRenderer {
    /// Why an item was left out of the list (logged by the store).
    struct Skipped: Sendable, Equatable {
        let provider: Provider
        let productID: String
        let variantID: String
        let reason: String
    }

    /// One resource per purchasable variant, in the given order.
    ///
    /// Id scheme (opaque to apps, unique within the list because the seed's iOS
    /// `Product` is `Identifiable`): ``CatalogEntryIDs``, the rule the
    /// entitlement answer's `product_id` follows too:
    /// - a product with a single variant keeps the product's ``CatalogID``
    ///   (`ls_<product>`, `ps_<plan code>`), so the common case reads naturally;
    /// - a product with several variants (e.g. monthly and yearly) gets one
    ///   entry per variant, each with `CatalogID(provider, rawID: "<productID>.<variantID>")`
    ///   (`ls_12.34`), so every entry has its own id.
    ///
    /// `variantId` is always the variant's ``CatalogID`` (`ls_<variant>`); it is
    /// what the app sends to `POST /api/create-checkout`. Items whose ids cannot
    /// form a ``CatalogID``, and later items repeating an id already listed,
    /// are skipped and reported.
    static func resources(from items: [CatalogItem], skipped: inout [Skipped]) -> [ProductResource] {
        let ids = CatalogEntryIDs(items)
        var seen = Set<String>()
        var resources: [ProductResource] = []
        resources.reserveCapacity(items.count)
        for item in items {
            func skip(_ reason: String) {
                skipped.append(Skipped(provider: item.provider, productID: item.productID, variantID: item.variantID, reason: reason))
            }
            guard let variantID = item.catalogVariantID else {
                skip("variant id is not a valid catalog id")
                continue
            }
            guard let id = ids.id(of: item) else {
                skip("product id is not a valid catalog id")
                continue
            }
            guard seen.insert(id.description).inserted else {
                skip("duplicate id \(id)")
                continue
            }
            resources.append(ProductResource(id: id, variantId: variantID, attributes: ProductAttributes(item: item)))
        }
        return resources
    }

    /// Encodes the list body and one body per product.
    ///
    /// Keys are sorted so the bytes, and therefore the entity tags, depend on
    /// the data only, never on encoder internals.
    /// - Throws: the encoder's error (not expected for these types).
    static func snapshot(of products: [ProductResource], fetchedAt: Double) throws -> CatalogSnapshot {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let list = RenderedBody(bytes: Array(try encoder.encode(ProductListResponse(products: products))))
        var byID: [String: RenderedBody] = [:]
        byID.reserveCapacity(products.count)
        for product in products {
            byID[product.id] = RenderedBody(bytes: Array(try encoder.encode(ProductDetailResponse(product: product))))
        }
        return CatalogSnapshot(products: products, list: list, productsByID: byID, fetchedAt: fetchedAt)
    }
}
