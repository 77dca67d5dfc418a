@testable import SeedModels
import Foundation
import HTTPClient
import Postgres
import Testing

/// Promotion codes at checkout through the gateway with real processes: a
/// code lowers what Lemon Squeezy and Stripe charge (the order the projection
/// holds has the discounted amount, from the provider's webhook), a refused
/// code is a 422 naming why, and Paystack, which has none, is a 422.
@Suite(.serialized, .liveStack()) struct OffersEndToEndTests {
    var stack: LiveStack { get throws { try LiveStack.required() } }

    /// `POST /api/create-checkout` with `fields` added to the flow's usual body.
    func createCheckout(_ flow: PurchaseFlow, productID: String, variantID: String, fields: String) async throws -> HTTPClientResponse {
        let body = #"{"customerEmail":"\#(flow.email)","variantId":"\#(variantID)","productId":"\#(productID)",\#(fields)}"#
        return try await flow.stack.request(.post, flow.stack.gateway + "/api/create-checkout", token: flow.token, json: body)
    }

    /// The amount of the user's one order, once the projection has it.
    func orderAmount(_ flow: PurchaseFlow) async throws -> Int64 {
        try await flow.stack.eventually("\(flow.provider) order projected") {
            try await flow.stack.withDatabase { pool in
                let rows = try await pool.query("SELECT amount FROM orders WHERE app_user_id = \(flow.subject)")
                return try rows.first?.decode(Int64?.self) ?? nil
            }
        }
    }

    @Test(arguments: [
        // Sound Effects Bundle, Standard: $14.99, 20 % off. Pro Icons Pack: $9.99, 20 % off (whole cents down).
        ("lemonsqueezy", "ls_5", "ls_6", Int64(1200)), ("stripe", "st_prod_SbxProIcons", "st_price_SbxProIcons", Int64(800)),
    ])
    func aPromotionCodeLowersWhatTheProviderCharges(provider: String, productID: String, variantID: String, charged: Int64) async throws {
        let stack = try self.stack
        let flow = try await PurchaseFlow.make(stack, provider: provider)
        let response = try await createCheckout(
            flow, productID: productID, variantID: variantID, fields: #""promotionCode":"SPRING20","locale":"de""#)
        #expect(response.status == 200, "create-checkout answered \(response.status): \(response.bodyString)")
        let checkout = try stack.decode(SeedLemonSqueezy.CheckoutResponse.self, response)
        try await flow.pay(checkoutURL: checkout.checkoutUrl)
        #expect(try await orderAmount(flow) == charged)
    }

    @Test func aRefusedCodeIs422NamingTheProvidersReason() async throws {
        let stack = try self.stack
        for (provider, productID, variantID) in [("lemonsqueezy", "ls_5", "ls_6"), ("stripe", "st_prod_SbxProIcons", "st_price_SbxProIcons")] {
            let flow = try await PurchaseFlow.make(stack, provider: provider)
            let response = try await createCheckout(flow, productID: productID, variantID: variantID, fields: #""promotionCode":"EXPIRED10""#)
            let body = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            #expect(response.status == 422 && body["code"] as? String == "promotion_code_refused", "\(provider): \(response.bodyString)")
            #expect((body["error"] as? String)?.contains(provider) == true)
        }
    }

    @Test func paystackHasNoPromotionCodesOrCheckoutTrials() async throws {
        let stack = try self.stack
        let flow = try await PurchaseFlow.make(stack, provider: "paystack")
        let product = try await flow.subscriptionProduct()
        for (fields, code) in [(#""promotionCode":"SPRING20""#, "promotion_codes_unsupported"), (#""trialDays":7"#, "trial_unsupported")] {
            let response = try await createCheckout(flow, productID: product.productID, variantID: product.variantID, fields: fields)
            let body = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            #expect(response.status == 422 && body["code"] as? String == code, "\(response.bodyString)")
        }
    }
}
