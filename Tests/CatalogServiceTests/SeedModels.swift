@testable import SeedModels

// The seed tutorial's iOS models ("In-App Purchases on iOS with Lemon
// Squeezy"), from the one shared copy: the catalog's responses must decode
// with exactly these. They shadow the Models types of the same name inside
// this test target on purpose.
typealias ProductResponse = SeedLemonSqueezy.ProductResponse
typealias ProductsData = SeedLemonSqueezy.ProductsData
typealias Product = SeedLemonSqueezy.Product
typealias ProductAttributes = SeedLemonSqueezy.ProductAttributes
typealias CheckoutResponse = SeedLemonSqueezy.CheckoutResponse

/// Not in the seed: the single-product envelope, built from the seed's `Product`.
struct SingleProductResponse: Codable {
    let success: Bool
    let product: Product
}
