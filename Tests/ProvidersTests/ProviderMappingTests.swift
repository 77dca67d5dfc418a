import Foundation
import Testing
import TestSupport
import BillingModel
import JSONCodec
@testable import Providers
import Webhooks

/// How API responses (the shared examples, plus hand-made variants) map into
/// provider-neutral values; the clients' HTTP behaviour is tested against the sandbox.
@Suite struct ProviderMappingTests {
    func json(_ name: String) throws -> JSONValue {
        try #require(JSONValue.decodeResponse(try Fixture.bytes(name)))
    }

    func json(text: String) throws -> JSONValue {
        try #require(JSONValue.decodeResponse(Array(text.utf8)))
    }

    @Test func lemonSqueezyProductWithVariantFromIncluded() throws {
        let page = try json("lemonsqueezy.api.products_list_include_variants.synthetic.json")
        let items = LemonSqueezyCatalogMapper.items(products: page["data"]?.array ?? [], included: page["included"]?.array ?? [], currency: "USD")
        #expect(
            items == [
                CatalogItem(
                    provider: .lemonsqueezy, productID: "1", variantID: "1", name: "Example Product", descriptionHTML: "<p>Lorem ipsum...</p>",
                    descriptionText: "Lorem ipsum...", price: 999, currency: "USD", formattedPrice: "$9.99", interval: nil,
                    buyNowURL: "https://my-store.lemonsqueezy.com/checkout/buy/0a841cf5-4cc2-4bbb-ae5d-9529d97deec6", testMode: false)
            ])
    }

    /// Pending default variants are kept when a product has no published ones; drafts never;
    /// draft products never; order is by name then ids, whatever the input order.
    @Test func lemonSqueezyVariantRules() throws {
        func product(_ id: Int, _ name: String, _ status: String) -> String {
            #"{"type":"products","id":"\#(id)","attributes":{"name":"\#(name)","status":"\#(status)","description":"<p>\#(name) &amp; more</p>","price":500,"price_formatted":"€5.00","buy_now_url":"https://s.lemonsqueezy.com/checkout/buy/p\#(id)"}}"#
        }
        func variant(_ id: Int, product: Int, _ name: String, _ status: String, price: Int, sort: Int, interval: String? = nil) -> String {
            let sub =
                interval.map { #""is_subscription":true,"interval":"\#($0)","interval_count":1"# } ?? #""is_subscription":false,"interval":null"#
            return
                #"{"type":"variants","id":"\#(id)","attributes":{"product_id":\#(product),"name":"\#(name)","description":"","status":"\#(status)","price":\#(price),"sort":\#(sort),\#(sub)}}"#
        }
        let products = try json(
            text: "[" + [product(3, "Zeta", "published"), product(2, "Alpha", "published"), product(4, "Hidden", "draft")].joined(separator: ",")
                + "]")
        let included = try json(
            text: "["
                + [
                    variant(30, product: 3, "Default", "pending", price: 500, sort: 0, interval: "month"),
                    variant(21, product: 2, "Yearly", "published", price: 9000, sort: 2, interval: "year"),
                    variant(20, product: 2, "Monthly", "published", price: 900, sort: 1, interval: "month"),
                    variant(22, product: 2, "Default", "pending", price: 0, sort: 0),
                    variant(23, product: 2, "Draft", "draft", price: 1, sort: 3),
                    variant(40, product: 4, "Default", "pending", price: 1, sort: 0),
                ].joined(separator: ",") + "]")
        let items = LemonSqueezyCatalogMapper.items(products: products.array ?? [], included: included.array ?? [], currency: "eur")
        #expect(items.map(\.variantID) == ["20", "21", "30"])
        #expect(items.map(\.name) == ["Alpha – Monthly", "Alpha – Yearly", "Zeta"])
        #expect(items[0].interval == BillingInterval(unit: .month))
        #expect(items[1].interval == BillingInterval(unit: .year))
        #expect(items[1].formattedPrice == "€90.00")
        #expect(items[1].buyNowURL == nil)
        #expect(items[2].formattedPrice == "€5.00")
        #expect(items[2].buyNowURL == "https://s.lemonsqueezy.com/checkout/buy/p3")
        #expect(items[2].descriptionText == "Zeta & more")
        #expect(items.allSatisfy { $0.currency == "EUR" })
    }

    @Test func paystackPlans() throws {
        let items = PaystackMapper.catalogItems(try json("paystack.api.plan_list.json")["data"]?.array ?? [])
        #expect(items.map(\.name) == ["Monthly retainer", "Satin Flower"])
        #expect(
            items[0]
                == CatalogItem(
                    provider: .paystack, productID: "PLN_gx2wn530m0i3w3m", variantID: "PLN_gx2wn530m0i3w3m", name: "Monthly retainer",
                    descriptionHTML: "", price: 50000, currency: "NGN", formattedPrice: "₦500.00", interval: BillingInterval(unit: .month),
                    testMode: true))
        #expect(items[1].interval == BillingInterval(unit: .week))
    }

    @Test func lemonSqueezySubscription() throws {
        let s = try #require(LemonSqueezySubscriptionMapper.subscription(try json("lemonsqueezy.api.subscription_get.json")["data"] ?? .null))
        #expect(s.id == "1")
        #expect(s.status == "active")
        #expect(s.customerID == "1")
        #expect(s.customerEmail == "gernser@yahoo.com")
        #expect(s.productID == "1" && s.variantID == "1")
        #expect(s.productName == "Example Product" && s.variantName == "Example Variant")
        #expect(s.renewsAt == date("2022-11-12T00:00:00Z"))
        #expect(s.nextPaymentDate == s.renewsAt)
        #expect(s.endsAt == nil)
        #expect(s.cancelled == false)
        #expect(s.customerPortalURL?.hasPrefix("https://my-store.lemonsqueezy.com/billing?") == true)
        #expect(s.cardBrand == "visa")
        let cancelled = try #require(
            LemonSqueezySubscriptionMapper.subscription(try json("lemonsqueezy.api.subscription_cancel.json")["data"] ?? .null))
        #expect(cancelled.cancelled)
        #expect(cancelled.status == "cancelled")
        #expect(cancelled.endsAt != nil)
    }

    @Test func paystackSubscription() throws {
        let s = try #require(PaystackMapper.subscription(try json("paystack.api.subscription_fetch.json")["data"] ?? .null))
        #expect(s.id == "SUB_vsyqdmlzble3uii")
        #expect(s.status == "active")
        #expect(s.customerID == "CUS_xnxdt6s1zg1f4nx")
        #expect(s.customerEmail == "bojack@horsinaround.com")
        #expect(s.planCode == "PLN_gx2wn530m0i3w3m")
        #expect(s.productName == "Monthly retainer (renamed)")
        #expect(s.emailToken == "d7gofp6yppn3qz7")
        #expect(s.nextPaymentDate == date("2016-04-28T07:00:00Z"))
        #expect(s.renewsAt == s.nextPaymentDate)
        #expect(s.cardBrand == "visa" && s.cardLastFour == "4081")
        #expect(s.testMode == true)
        let listed = try json("paystack.api.subscription_list.json")["data"]?.array?.compactMap(PaystackMapper.subscription) ?? []
        #expect(!listed.isEmpty && listed.allSatisfy { $0.id.hasPrefix("SUB_") })
    }

    @Test func providerErrorFormats() throws {
        let invalidKey = PaystackErrorFormat().detail(try json("paystack.api.customer_fetch.error_401.json"))
        #expect(invalidKey.message == "Invalid key" && invalidKey.kind == .unauthorized)
        let limited = PaystackErrorFormat().detail(try json("paystack.api.error_429_rate_limited.json"))
        #expect(limited.message == "Rate limit exceeded!" && limited.code == "rate_limited" && limited.kind == nil)
        let duplicate = PaystackErrorFormat().detail(try json("paystack.api.transaction_initialize.error_400_duplicate_reference.json"))
        #expect(duplicate.code == "duplicate_reference")
        let lsValidation = LemonSqueezyErrorFormat().detail(
            try json(
                text:
                    #"{"status":422,"message":"Unprocessable Entity","errors":[{"detail":"The checkout data must be an array.","source":{"pointer":"/data/attributes/checkout_data"},"status":"422","title":"Unprocessable Entity"}]}"#
            ))
        #expect(lsValidation.message == "The checkout data must be an array.")
        #expect(lsValidation.code == "/data/attributes/checkout_data")
        #expect(LemonSqueezyErrorFormat().detail(try json(text: #"{"message":"Server Error"}"#)).message == "Server Error")
        #expect(LemonSqueezyErrorFormat().detail(nil).message == nil)
        #expect(PaystackErrorFormat().failureInSuccess(try json(text: #"{"status":false,"message":"Nope"}"#))?.message == "Nope")
        #expect(LemonSqueezyErrorFormat().failureInSuccess(try json(text: #"{"status":false}"#)) == nil)
    }

    @Test func errorDescriptionNamesProviderOperationAndAnswer() {
        let error = ProviderError(
            provider: .paystack, operation: "createCheckout", kind: .validation, status: 400, message: "Duplicate Transaction Reference",
            code: "duplicate_reference")
        #expect(error.description == "paystack createCheckout failed: validation (HTTP 400): Duplicate Transaction Reference [duplicate_reference]")
        #expect(
            ProviderError(provider: .lemonsqueezy, operation: "x", kind: .rejected, message: String(repeating: "a", count: 1000)).message.count
                == ProviderError.maximumMessageLength)
        #expect(ProviderTransport.kind(forStatus: 403) == .unauthorized)
        #expect(ProviderTransport.kind(forStatus: 422) == .validation)
        #expect(ProviderTransport.kind(forStatus: 500) == .unavailable)
        #expect(ProviderTransport.kind(forStatus: 405) == .rejected)
    }

    @Test func lemonSqueezyCheckoutBody() throws {
        let request = CheckoutRequest(
            variantID: "42", email: EmailAddress("Buyer@Example.COM"), appUserID: "user-1", checkoutID: "c0ffee00-0000-4000-8000-000000000001",
            ownershipProof: "0a1b", redirectURL: "https://app.example.com/done", expiresAt: Date(timeIntervalSince1970: 1_900_000_000))
        let body = String(decoding: LemonSqueezyRequests.checkout(request, storeID: "7", testMode: true).encodedBytes(), as: UTF8.self)
        #expect(
            body
                == #"{"data":{"attributes":{"checkout_data":{"custom":{"storefront_checkout_id":"c0ffee00-0000-4000-8000-000000000001","storefront_proof":"0a1b","storefront_user_id":"user-1"},"email":"Buyer@example.com"},"expires_at":"2030-03-17T17:46:40.000Z","product_options":{"redirect_url":"https://app.example.com/done"},"test_mode":true},"relationships":{"store":{"data":{"id":"7","type":"stores"}},"variant":{"data":{"id":"42","type":"variants"}}},"type":"checkouts"}}"#
        )
    }

    @Test func paystackReferencesAndIDs() throws {
        let reference = try PaystackClient.makeReference(failure: ProviderError(provider: .paystack, operation: "t", kind: .unavailable, message: ""))
        #expect(reference.hasPrefix("sf-") && reference.count == 27)
        #expect(PaystackClient.isValidReference(reference))
        #expect(!PaystackClient.isValidReference("has_underscore"))
        #expect(!PaystackClient.isValidReference(""))
        #expect(PaystackClient.isValidReference("a.b-c=d"))
        #expect(ProviderIDs.isSafe("SUB_vsyqdmlzble3uii"))
        #expect(!ProviderIDs.isSafe("../customer"))
        #expect(!ProviderIDs.isSafe("a/b"))
        #expect(!ProviderIDs.isSafe("a?b"))
        #expect(ProviderIDs.isNumeric("123") && !ProviderIDs.isNumeric("12a"))
        #expect(
            QueryString.encode([("filter[store_id]", "1"), ("filter[user_email]", "a+b@x.io")])
                == "filter%5Bstore_id%5D=1&filter%5Buser_email%5D=a%2Bb%40x.io")
    }
}
