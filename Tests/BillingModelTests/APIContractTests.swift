@testable import SeedModels
import Foundation
import Testing
@testable import BillingModel

@Suite struct APIContractTests {
    static let items = [
        CatalogItem(
            provider: .lemonsqueezy, productID: "1", variantID: "11", name: "Pro <Monthly>",
            descriptionHTML: "<p>Everything &amp; more.</p><p>Cancel&nbsp;anytime</p>", price: 999, currency: "usd",
            formattedPrice: "$9.99", interval: BillingInterval(unit: .month),
            buyNowURL: "https://demo.lemonsqueezy.com/checkout/buy/11"),
        CatalogItem(
            provider: .paystack, productID: "PLN_gx2wn530m0i3w3m", variantID: "PLN_gx2wn530m0i3w3m",
            name: "Monthly retainer", price: 500_000, currency: "NGN", interval: BillingInterval(paystackInterval: "monthly")),
        CatalogItem(provider: .lemonsqueezy, productID: "2", variantID: "21", name: "E-book", price: 1499, currency: "EUR"),
    ]

    @Test func productListDecodesWithTheSeedModelsUnchanged() throws {
        let bytes = try JSONEncoder().encode(ProductListResponse(items: Self.items))
        let seed = try JSONDecoder().decode(SeedLemonSqueezy.ProductResponse.self, from: bytes)
        #expect(seed.success)
        #expect(seed.products.data.map(\.id) == ["ls_1", "ps_PLN_gx2wn530m0i3w3m", "ls_2"])
        #expect(seed.products.data.map(\.variantId) == ["ls_11", "ps_PLN_gx2wn530m0i3w3m", "ls_21"])
        #expect(seed.products.data.allSatisfy { $0.type == "products" })
        let first = seed.products.data[0].attributes
        #expect(first.name == "Pro <Monthly>")
        #expect(first.price_formatted == "$9.99")
        #expect(first.description == "<p>Everything &amp; more.</p><p>Cancel&nbsp;anytime</p>")
        #expect(first.buy_now_url == "https://demo.lemonsqueezy.com/checkout/buy/11")
        // No buy-now link and no description: empty strings, never null.
        let paystack = seed.products.data[1].attributes
        #expect(paystack.buy_now_url == "")
        #expect(paystack.description == "")
        #expect(paystack.price_formatted == "₦5,000.00")
    }

    @Test func productExtrasAreWrittenAndContractStringsAreNeverNull() throws {
        let bytes = try JSONEncoder().encode(ProductListResponse(items: Self.items))
        let root = try #require(JSONSerialization.jsonObject(with: bytes) as? [String: Any])
        let data = try #require((root["products"] as? [String: Any])?["data"] as? [[String: Any]])
        for product in data {
            let attributes = try #require(product["attributes"] as? [String: Any])
            for key in ["name", "description", "price_formatted", "buy_now_url"] {
                #expect(attributes[key] is String, "\(key) must be a string")
            }
        }
        let first = try #require(data[0]["attributes"] as? [String: Any])
        #expect(first["description_text"] as? String == "Everything & more.\nCancel anytime")
        #expect(first["price"] as? Int == 999)
        #expect(first["currency"] as? String == "USD")
        #expect(first["interval"] as? String == "month")
        #expect(first["interval_count"] as? Int == 1)
        #expect(first["provider"] as? String == "lemonsqueezy")
        let oneTime = try #require(data[2]["attributes"] as? [String: Any])
        #expect(oneTime["interval"] is NSNull)
        #expect(oneTime["price_formatted"] as? String == "€14.99")
        let decoded = try JSONDecoder().decode(ProductListResponse.self, from: bytes)
        #expect(decoded == ProductListResponse(items: Self.items))
    }

    @Test func itemsWithUnusableIDsAreLeftOut() {
        let bad = CatalogItem(provider: .paystack, productID: "", variantID: "PLN x", name: "x", price: 1, currency: "NGN")
        #expect(ProductListResponse(items: [bad]).products.data.isEmpty)
    }

    @Test func checkoutResponseDecodesWithTheSeedModel() throws {
        let response = CreateCheckoutResponse(
            checkoutUrl: "https://checkout.paystack.com/0peioxfhpn", checkoutId: "c-1", provider: .paystack,
            expiresAt: Date(timeIntervalSince1970: 1_900_000_000))
        let bytes = try JSONEncoder().encode(response)
        let seed = try JSONDecoder().decode(SeedLemonSqueezy.CheckoutResponse.self, from: bytes)
        #expect(seed.success)
        #expect(seed.checkoutUrl == "https://checkout.paystack.com/0peioxfhpn")
        let object = try #require(JSONSerialization.jsonObject(with: bytes) as? [String: Any])
        #expect(object["expiresAt"] as? String == "2030-03-17T17:46:40.000Z")
        #expect(try JSONDecoder().decode(CreateCheckoutResponse.self, from: bytes) == response)
    }

    @Test func checkoutRequestIsWhatTheSeedAppSends() throws {
        // The seed app encodes a [String: String] dictionary.
        let body = try JSONEncoder().encode(["customerEmail": " Ada@Example.COM ", "productId": "ls_1", "variantId": "ls_11"])
        let request = try JSONDecoder().decode(CreateCheckoutRequest.self, from: body)
        #expect(request.catalogVariantID == CatalogID(provider: .lemonsqueezy, rawID: "11"))
        #expect(request.catalogProductID == CatalogID(provider: .lemonsqueezy, rawID: "1"))
        #expect(request.email?.value == "Ada@example.com")
        #expect(!request.hasInvalidEmail)
        let bad = CreateCheckoutRequest(customerEmail: "not-an-email", variantId: "ls_11", productId: nil)
        #expect(bad.hasInvalidEmail && bad.email == nil)
        #expect(!CreateCheckoutRequest(customerEmail: "", variantId: "ls_11", productId: nil).hasInvalidEmail)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(CreateCheckoutRequest.self, from: Data(#"{"customerEmail":"a@b.co"}"#.utf8)) }
    }

    @Test func statusResponseWritesExplicitNulls() throws {
        let bytes = try JSONEncoder().encode(SubscriptionStatusResponse.none)
        let object = try #require(JSONSerialization.jsonObject(with: bytes) as? [String: Any])
        #expect(object["active"] as? Bool == false)
        for key in [
            "plan_name", "next_billing_date", "subscription_code", "email_token", "status", "provider",
            "renews_at", "ends_at", "customer_portal_url", "pending_checkout",
        ] {
            #expect(object.keys.contains(key), "\(key) must be present")
            #expect(object[key] is NSNull, "\(key) must be null")
        }
        #expect(object["cancel_at_period_end"] as? Bool == false)
        #expect((object["entitlements"] as? [Any])?.isEmpty == true)
        let seed = try JSONDecoder().decode(SeedPaystack.SubscriptionStatus.self, from: bytes)
        #expect(!seed.active && seed.planName == nil && seed.nextBillingDate == nil && seed.subscriptionCode == nil && seed.emailToken == nil)
    }

    @Test func activeStatusDecodesWithTheSeedModel() throws {
        let next = try #require(Timestamp.parse("2025-06-19T14:08:09.000Z"))
        let status = SubscriptionStatusResponse(
            active: true, planName: "Monthly retainer", nextBillingDate: next, subscriptionCode: "SUB_vsyqdmlzble3uii",
            emailToken: "ctt824k16n34u69", status: "active", provider: .paystack, renewsAt: next,
            entitlements: [
                EntitlementInfo(
                    identifier: "premium", isActive: true, expiresAt: next, willRenew: true, periodType: .normal,
                    productID: "ps_PLN_gx2wn530m0i3w3m", provider: .paystack, source: .subscription, latestPurchaseAt: next,
                    originalPurchaseAt: next, unsubscribeDetectedAt: nil, billingIssueDetectedAt: nil, sandbox: true)
            ],
            pendingCheckout: .init(checkoutId: "c-2", url: "https://checkout.paystack.com/x", createdAt: next, expiresAt: nil))
        let bytes = try JSONEncoder().encode(status)
        let seed = try JSONDecoder().decode(SeedPaystack.SubscriptionStatus.self, from: bytes)
        #expect(seed.active)
        #expect(seed.planName == "Monthly retainer")
        #expect(seed.nextBillingDate == "2025-06-19T14:08:09.000Z")
        #expect(seed.subscriptionCode == "SUB_vsyqdmlzble3uii")
        #expect(seed.emailToken == "ctt824k16n34u69")
        #expect(try JSONDecoder().decode(SubscriptionStatusResponse.self, from: bytes) == status)
    }

    @Test func cancelRequestAndErrorBody() throws {
        let body = try JSONEncoder().encode(["subscription_code": "SUB_x", "email_token": "tok"])
        let request = try JSONDecoder().decode(CancelSubscriptionRequest.self, from: body)
        #expect(request == CancelSubscriptionRequest(subscriptionCode: "SUB_x", emailToken: "tok"))
        let lemon = try JSONDecoder().decode(CancelSubscriptionRequest.self, from: Data(#"{"subscription_code":"421953"}"#.utf8))
        #expect(lemon.emailToken == nil)
        let error = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(APIErrorResponse("Unknown product"))) as? [String: Any])
        #expect(error["success"] as? Bool == false)
        #expect(error["error"] as? String == "Unknown product")
    }

    @Test func entitlementInfoHasRevenueCatsFieldsWithExplicitNulls() throws {
        let bought = try #require(Timestamp.parse("2025-06-19T14:08:09.000Z"))
        let info = EntitlementInfo(
            identifier: "pro_icons", isActive: true, expiresAt: nil, willRenew: false, periodType: .normal, productID: "ls_7",
            provider: .lemonsqueezy, source: .purchase, latestPurchaseAt: bought, originalPurchaseAt: bought,
            unsubscribeDetectedAt: nil, billingIssueDetectedAt: nil, sandbox: false)
        let bytes = try JSONEncoder().encode(EntitlementsResponse(entitlements: [info]))
        let object = try #require(JSONSerialization.jsonObject(with: bytes) as? [String: Any])
        #expect(object["success"] as? Bool == true)
        let first = try #require((object["entitlements"] as? [[String: Any]])?.first)
        #expect(
            Set(first.keys) == [
                "identifier", "is_active", "expires_at", "will_renew", "period_type", "product_id", "provider",
                "source", "latest_purchase_at", "original_purchase_at", "unsubscribe_detected_at",
                "billing_issue_detected_at", "sandbox", "dispute_detected_at", "refunded_at", "store", "grant_id",
            ])
        #expect(first["expires_at"] is NSNull, "lifetime access is an explicit null")
        #expect(first["source"] as? String == "purchase" && first["period_type"] as? String == "normal")
        #expect(first["latest_purchase_at"] as? String == "2025-06-19T14:08:09.000Z")
        #expect(try JSONDecoder().decode(EntitlementsResponse.self, from: bytes).entitlements == [info])
    }
}
