import BillingModel
import Foundation
import HTTPClient
import JSONCodec
import ProviderConfiguration
import Providers
import ServiceSettings
import Testing

/// A Checkout Session's offers over a fake transport: the promotion code
/// resolved to its id and sent as `discounts`, the trial, Stripe Tax, Stripe's
/// own code field, and the buyer's locale mapped to Checkout's list. No server.
@Suite("Stripe checkout offers")
struct StripeCheckoutOfferTests {
    let base = StripeClientTests()

    func client(
        automaticTax: Bool = false, allowPromotionCodes: Bool = false, _ answer: @escaping FakeStripeTransport.Answer
    ) -> (StripeClient, FakeStripeTransport) {
        var configuration = StripeClientTests.configuration
        configuration.automaticTax = automaticTax
        configuration.allowPromotionCodes = allowPromotionCodes
        let transport = FakeStripeTransport(answer)
        return (
            StripeClient(provider: .stripe, configuration: configuration, transport: transport, now: { StripeClientTests.now }), transport
        )
    }

    /// The session answers plus `GET /v1/promotion_codes`, which knows `SPRING20` only.
    func answer(_ request: StripeRequest) throws(ProviderError) -> String {
        guard request.path == "/v1/promotion_codes" else { return try base.sessionAnswer(request) }
        let known = request.queryValue("code")?.lowercased() == "spring20" && request.queryValue("active") == "true"
        return FakeStripeTransport.list(known ? [#"{"id":"promo_1","object":"promotion_code","code":"SPRING20","active":true}"#] : [])
    }

    @Test func aCodeIsResolvedToItsIdAndSentAsTheSessionsDiscount() async throws {
        let (client, transport) = client(allowPromotionCodes: true) { request throws(ProviderError) in try answer(request) }
        var request = base.checkoutRequest("price_M")
        request.promotionCode = "spring20"
        _ = try await client.createCheckout(request)
        let lookup = try #require(transport.requests.first { $0.path == "/v1/promotion_codes" })
        #expect(lookup.method == .get && lookup.queryValue("code") == "spring20" && lookup.queryValue("active") == "true")
        let fields = base.form(try #require(transport.requests.last))
        #expect(fields["discounts[0][promotion_code]"] == "promo_1")
        #expect(fields["allow_promotion_codes"] == nil, "Stripe refuses discounts and allow_promotion_codes together")
    }

    @Test func anUnknownOrInactiveCodeIsRefusedBeforeASessionIsMade() async throws {
        let (client, transport) = client { request throws(ProviderError) in try answer(request) }
        var request = base.checkoutRequest("price_M")
        request.promotionCode = "EXPIRED10"
        let error = await #expect(throws: ProviderError.self) { try await client.createCheckout(request) }
        #expect(error?.kind == .offerRefused && error?.message.contains("No active promotion code") == true)
        #expect(!transport.requests.contains { $0.path == "/v1/checkout/sessions" })
    }

    @Test func aTrialTaxAndStripesOwnCodeFieldAreSessionParameters() async throws {
        let (client, transport) = client(automaticTax: true, allowPromotionCodes: true) { request throws(ProviderError) in
            try answer(request)
        }
        var request = base.checkoutRequest("price_M")
        request.trialDays = 14
        _ = try await client.createCheckout(request)
        let fields = base.form(try #require(transport.requests.last))
        #expect(fields["subscription_data[trial_period_days]"] == "14")
        #expect(fields["automatic_tax[enabled]"] == "true" && fields["allow_promotion_codes"] == "true")
        #expect(fields["locale"] == nil, "no locale: Stripe's default (auto)")
        #expect(!transport.requests.contains { $0.path == "/v1/promotion_codes" })
    }

    @Test func withoutTheSettingsNeitherTaxNorTheCodeFieldIsSent() async throws {
        let (client, transport) = client { request throws(ProviderError) in try answer(request) }
        _ = try await client.createCheckout(base.checkoutRequest("price_I"))
        let fields = base.form(try #require(transport.requests.last))
        #expect(fields["automatic_tax[enabled]"] == nil && fields["allow_promotion_codes"] == nil && fields["discounts[0][promotion_code]"] == nil)
    }

    @Test func aTrialOnAOneTimePriceIsAnOfferRefusal() async throws {
        let (client, transport) = client { request throws(ProviderError) in try answer(request) }
        var request = base.checkoutRequest("price_I")
        request.trialDays = 7
        let error = await #expect(throws: ProviderError.self) { try await client.createCheckout(request) }
        #expect(error?.kind == .offerRefused)
        #expect(!transport.requests.contains { $0.path == "/v1/checkout/sessions" })
    }

    @Test(arguments: [
        ("pt-BR", "pt-BR"), ("pt-PT", "pt"), ("de-AT", "de"), ("en-GB", "en-GB"), ("en-US", "en"), ("no", "nb"), ("es-419", "es-419"),
        ("he", "auto"), ("ar-EG", "auto"), ("zh-TW", "zh-TW"),
    ])
    func theLocaleIsOneCheckoutTakesOrAuto(given: String, sent: String) async throws {
        let (client, transport) = client { request throws(ProviderError) in try answer(request) }
        var request = base.checkoutRequest("price_I")
        let locale = try #require(CheckoutLocale(given))
        request.locale = locale
        _ = try await client.createCheckout(request)
        #expect(base.form(try #require(transport.requests.last))["locale"] == sent)
    }
}
