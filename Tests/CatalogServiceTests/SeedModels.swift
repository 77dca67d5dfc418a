// The iOS models of the seed tutorial "In-App Purchases on iOS with Lemon
// Squeezy" (/work/shared/seeds/000_*.txt), copied unchanged: the catalog's
// responses must decode with exactly these. They shadow the Models types of
// the same name inside this test target on purpose.

struct ProductResponse: Codable {
    let success: Bool
    let products: ProductsData
}
 
struct ProductsData: Codable {
    let data: [Product]
}
 
struct Product: Codable, Identifiable {
    let type: String
    let id: String
    let variantId: String
    let attributes: ProductAttributes
}
 
struct ProductAttributes: Codable {
    let name: String
    let price_formatted: String
    let description: String
    let buy_now_url: String
}
 
struct CheckoutResponse: Codable {
    let success: Bool
    let checkoutUrl: String
}

/// Not in the seed: the single-product envelope, built from the seed's `Product`.
struct SingleProductResponse: Codable {
    let success: Bool
    let product: Product
}
