import BillingModel
import JSONCodec
import Webhooks

/// Turns Lemon Squeezy products and their included variants into catalog items.
///
/// Rules: only `published` products; per product, its `published` variants,
/// or — when it has none — its `pending` variants (a product with a single
/// variant keeps that "Default" variant `pending`, so filtering on published
/// would hide every simple product); `draft` variants never. One item per
/// kept variant, named after the product (plus the variant name when the
/// product offers several). Order: product name, product id, variant `sort`,
/// variant id — stable whatever order the pages came in.
enum LemonSqueezyCatalogMapper {
    static func items(products: [JSONValue], included: [JSONValue], currency: String) -> [CatalogItem] {
        var variantsByProduct: [String: [JSONValue]] = [:]
        var seenVariants: Set<String> = []
        for resource in included where resource["type"]?.string == "variants" {
            guard let id = resource["id"]?.string, let product = resource["attributes", "product_id"]?.string, seenVariants.insert(id).inserted else {
                continue
            }
            variantsByProduct[product, default: []].append(resource)
        }

        var rows: [(product: String, productID: Int64, sort: Int64, variantID: Int64, item: CatalogItem)] = []
        var seenProducts: Set<String> = []
        for product in products where product["type"]?.string == "products" {
            guard let productID = product["id"]?.string, seenProducts.insert(productID).inserted else { continue }
            let attributes = product["attributes"] ?? .object([:])
            guard attributes["status"]?.string == "published" else { continue }
            let variants = keptVariants(variantsByProduct[productID] ?? [])
            let productName = attributes["name"]?.string ?? "Product \(productID)"
            for variant in variants {
                guard let variantID = variant["id"]?.string else { continue }
                let v = variant["attributes"] ?? .object([:])
                let single = variants.count == 1
                let variantName = v["name"]?.string
                let name = single || variantName == nil ? productName : "\(productName) – \(variantName!)"
                let variantDescription = v["description"]?.string ?? ""
                let description = variantDescription.isEmpty ? (attributes["description"]?.string ?? "") : variantDescription
                let price = v["price"]?.int64 ?? attributes["price"]?.int64 ?? 0
                let isSubscription = v["is_subscription"]?.bool ?? false
                let interval =
                    isSubscription
                    ? BillingInterval(lemonSqueezyInterval: v["interval"]?.string, count: v["interval_count"]?.int64.map { Int($0) }) : nil
                // A trial is the variant's own (a checkout cannot set one): `has_free_trial` with its interval.
                let trial =
                    isSubscription && v["has_free_trial"]?.bool == true
                    ? BillingInterval(lemonSqueezyInterval: v["trial_interval"]?.string, count: v["trial_interval_count"]?.int64.map { Int($0) })
                    : nil
                // The product's own display price is right only when this variant is its price.
                let formatted = single && attributes["price"]?.int64 == price ? attributes["price_formatted"]?.string : nil
                let item = CatalogItem(
                    provider: .lemonsqueezy, productID: productID, variantID: variantID, name: name, descriptionHTML: description,
                    price: price, currency: currency, formattedPrice: formatted, interval: interval,
                    buyNowURL: single ? attributes["buy_now_url"]?.string : nil,
                    testMode: v["test_mode"]?.bool ?? attributes["test_mode"]?.bool ?? false, trial: trial)
                rows.append((productName.lowercased(), Int64(productID) ?? Int64.max, v["sort"]?.int64 ?? 0, Int64(variantID) ?? Int64.max, item))
            }
        }
        rows.sort { a, b in
            if a.product != b.product { return a.product < b.product }
            if a.productID != b.productID { return a.productID < b.productID }
            if a.sort != b.sort { return a.sort < b.sort }
            if a.variantID != b.variantID { return a.variantID < b.variantID }
            return a.item.variantID < b.item.variantID
        }
        return rows.map(\.item)
    }

    static func keptVariants(_ variants: [JSONValue]) -> [JSONValue] {
        let published = variants.filter { $0["attributes", "status"]?.string == "published" }
        if !published.isEmpty { return published }
        return variants.filter { $0["attributes", "status"]?.string == "pending" }
    }
}
