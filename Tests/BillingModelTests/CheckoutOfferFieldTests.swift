import BillingModel
import Foundation
import Testing

/// The offer fields of `POST /api/create-checkout` and the catalog's trial
/// attributes: shapes and JSON, no server.
@Suite struct CheckoutOfferFieldTests {
    @Test(arguments: [("de", "de"), ("pt-br", "pt-BR"), ("EN-gb", "en-GB"), ("es-419", "es-419"), ("zh-Hant-TW", "zh-Hant-TW")])
    func languageTagsAreNormalised(given: String, tag: String) {
        #expect(CheckoutLocale(given)?.tag == tag)
    }

    @Test(arguments: ["", " de", "e", "english", "de_DE", "de-", "-de", "de-toolongsubtag", "d3", String(repeating: "a-", count: 20) + "a"])
    func malformedTagsAreRefused(given: String) {
        #expect(CheckoutLocale(given) == nil)
    }

    @Test func acceptLanguageGivesItsBestAcceptableTag() {
        #expect(CheckoutLocale(acceptLanguage: "fr-CH, fr;q=0.9, en;q=0.8")?.tag == "fr-CH")
        #expect(CheckoutLocale(acceptLanguage: "en;q=0.5, de-AT;q=0.8, *;q=1")?.tag == "de-AT", "the wildcard is no language")
        #expect(CheckoutLocale(acceptLanguage: "da;q=0, sv")?.tag == "sv", "q=0 means not acceptable")
        #expect(CheckoutLocale(acceptLanguage: "nl;q=0.7, it;q=0.7")?.tag == "nl", "ties keep the header's order")
        #expect(CheckoutLocale(acceptLanguage: "*, ???") == nil)
    }

    @Test func promotionCodesTrialDaysAndLocaleAreChecked() {
        func body(code: String? = nil, days: Int? = nil, locale: String? = nil) -> CreateCheckoutRequest {
            CreateCheckoutRequest(customerEmail: nil, variantId: "ls_1", productId: nil, promotionCode: code, trialDays: days, locale: locale)
        }
        #expect(body(code: "SPRING_20-x").hasValidPromotionCode && body().hasValidPromotionCode)
        for bad in ["", " SAVE", "SAVE 20", "SAVE%20", "ÄPFEL", String(repeating: "A", count: 65)] {
            #expect(!body(code: bad).hasValidPromotionCode, "\(bad)")
        }
        #expect(body(days: 1).hasValidTrialDays && body(days: 730).hasValidTrialDays && body().hasValidTrialDays)
        #expect(!body(days: 0).hasValidTrialDays && !body(days: 731).hasValidTrialDays && !body(days: -3).hasValidTrialDays)
        #expect(body(locale: "pt-BR").checkoutLocale?.tag == "pt-BR" && !body().hasInvalidLocale)
        #expect(body(locale: "").hasInvalidLocale && body(locale: " de").hasInvalidLocale && body(locale: "x y").hasInvalidLocale)
    }

    @Test func theOfferFieldsDecodeFromTheRequestBody() throws {
        let json = #"{"variantId":"st_price_1","promotionCode":"SPRING20","trialDays":14,"locale":"de"}"#
        let decoded = try JSONDecoder().decode(CreateCheckoutRequest.self, from: Data(json.utf8))
        #expect(decoded.promotionCode == "SPRING20" && decoded.trialDays == 14 && decoded.locale == "de")
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(CreateCheckoutRequest.self, from: Data(#"{"variantId":"x","trialDays":"14"}"#.utf8))
        }
    }

    @Test func productsShowTheVariantsTrialAndWhatACheckoutMayAsk() throws {
        let trialing = CatalogItem(
            provider: .lemonsqueezy, productID: "2", variantID: "3", name: "Premium – Yearly", price: 4999, currency: "USD",
            interval: BillingInterval(unit: .year), trial: BillingInterval(unit: .day, count: 14))
        let once = CatalogItem(
            provider: .stripe, productID: "prod_1", variantID: "price_1", name: "Icons", price: 999, currency: "USD",
            trial: BillingInterval(unit: .day, count: 3))
        #expect(once.trial == nil, "a one-time item has no trial")
        let monthly = CatalogItem(
            provider: .stripe, productID: "prod_2", variantID: "price_2", name: "Pro", price: 499, currency: "USD",
            interval: BillingInterval(unit: .month))
        let plan = CatalogItem(
            provider: .paystack, productID: "PLN_a", variantID: "PLN_a", name: "Basic", price: 100_000, currency: "NGN",
            interval: BillingInterval(unit: .month))
        let encoded = try JSONEncoder().encode(ProductListResponse(items: [trialing, once, monthly, plan]))
        let products =
            try #require(
                (try JSONSerialization.jsonObject(with: encoded) as? [String: Any])?["products"] as? [String: Any])["data"] as? [[String: Any]]
        let attributes = try #require(products).map { $0["attributes"] as? [String: Any] ?? [:] }
        #expect(attributes[0]["trial_interval"] as? String == "day" && attributes[0]["trial_interval_count"] as? Int == 14)
        #expect(attributes[0]["accepts_promotion_codes"] as? Bool == true && attributes[0]["checkout_sets_trial"] as? Bool == false)
        #expect(attributes[1]["trial_interval"] is NSNull && attributes[1]["trial_interval_count"] is NSNull, "explicit nulls")
        #expect(attributes[1]["checkout_sets_trial"] as? Bool == false, "one-time")
        #expect(attributes[2]["accepts_promotion_codes"] as? Bool == true && attributes[2]["checkout_sets_trial"] as? Bool == true)
        #expect(attributes[3]["accepts_promotion_codes"] as? Bool == false && attributes[3]["checkout_sets_trial"] as? Bool == false)
        // And back: an answer without the new fields (an older server) still decodes.
        let decoded = try JSONDecoder().decode(ProductListResponse.self, from: encoded)
        #expect(decoded.products.data[0].attributes.trialIntervalCount == 14)
        let old = #"{"name":"A","description":"","price_formatted":"","buy_now_url":"","provider":"stripe"}"#
        let legacy = try JSONDecoder().decode(ProductAttributes.self, from: Data(old.utf8))
        #expect(legacy.trialInterval == nil && !legacy.acceptsPromotionCodes)
    }
}
