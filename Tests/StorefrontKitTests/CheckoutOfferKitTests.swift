import Foundation
import StorefrontKit
import Testing

/// A checkout's offer as the kit sends it, and a product's trial as it reads it.
@Suite struct CheckoutOfferKitTests {
    @Test func theOfferFieldsAreSentOnlyWhenGiven() async throws {
        let stub = StubServer { request, _ in
            request.url.path == "/api/entitlements" ? .json(200, Fixtures.entitlements([])) : .json(200, Fixtures.checkout())
        }
        defer { stub.unregister() }
        let client = stub.client()
        let product = Product(
            id: "st_prod_1", variantID: "st_price_1", name: "Pro", priceFormatted: "$5", provider: .stripe, interval: "month",
            acceptsPromotionCodes: true, checkoutSetsTrial: true)
        _ = try await client.createCheckout(for: product, offer: CheckoutOffer(promotionCode: "SPRING20", trialDays: 14, locale: "de-DE"))
        _ = try await client.createCheckout(variantID: "st_price_1")
        let posts = stub.requests.filter { $0.method == "POST" }
        #expect(posts.count == 2)
        guard posts.count == 2 else { return }
        #expect(posts[0].json?["promotionCode"] as? String == "SPRING20" && posts[0].json?["trialDays"] as? Int == 14)
        #expect(posts[0].json?["locale"] as? String == "de-DE")
        #expect(posts[1].json?["promotionCode"] == nil && posts[1].json?["trialDays"] == nil && posts[1].json?["locale"] == nil)
    }

    @Test func aProductReadsItsTrialAndWhatACheckoutMayAsk() throws {
        let json = #"""
            {"type":"products","id":"ls_2","variantId":"ls_3","attributes":{"name":"Premium","description":"","price_formatted":"$49.99",\#
            "buy_now_url":"","provider":"lemonsqueezy","interval":"year","interval_count":1,"trial_interval":"day","trial_interval_count":14,\#
            "accepts_promotion_codes":true,"checkout_sets_trial":false}}
            """#
        let product = try JSONDecoder().decode(Product.self, from: Data(json.utf8))
        #expect(product.trialInterval == "day" && product.trialIntervalCount == 14)
        #expect(product.acceptsPromotionCodes && !product.checkoutSetsTrial)
        // Round trip, and an older server's product without the fields.
        #expect(try JSONDecoder().decode(Product.self, from: JSONEncoder().encode(product)) == product)
        struct Answer: Decodable { var product: Product }
        let old = try JSONDecoder().decode(Answer.self, from: Data(Fixtures.product().utf8)).product
        #expect(old.trialInterval == nil && !old.acceptsPromotionCodes && !old.checkoutSetsTrial)
    }
}
