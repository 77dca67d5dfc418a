import Catalog
@testable import CheckoutService
import CryptoPrimitives
import Foundation
import HTTPServer
import BillingModel
import Postgres
import Providers
import Synchronization
import Telemetry
import TestSupport
import Testing

/// `promotionCode`, `trialDays` and `locale` on `POST /api/create-checkout`,
/// through the router over fake providers and an in-memory quota: the shape
/// checks (400), what a provider's traits refuse (422 before it is asked),
/// what reaches the provider, and its refusal of a code (422 with its reason).
/// The pool points at a port nothing listens on; nothing here reaches it.
@Suite struct CheckoutOfferTests {
    /// Records each checkout request; throws `refusal` when set.
    final class RecordingProvider: UnusedProviderCalls {
        let provider: Provider
        let refusal: ProviderError?
        let requests = Mutex<[CheckoutRequest]>([])

        init(_ provider: Provider, refusal: ProviderError? = nil) {
            self.provider = provider
            self.refusal = refusal
        }

        func createCheckout(_ request: CheckoutRequest) async throws(ProviderError) -> ProviderCheckout {
            requests.withLock { $0.append(request) }
            if let refusal { throw refusal }
            return ProviderCheckout(provider: provider, providerCheckoutID: "co_1", url: "https://pay.example/co_1")
        }

        /// Every request so far.
        var sent: [CheckoutRequest] { requests.withLock { $0 } }
    }

    static let secret = Array("checkout-offer-tests-hs256-secret-012345".utf8)
    static let logger = Logger(service: "checkout-offer-tests", minimumLevel: .critical)
    static let monthly = BillingInterval(unit: .month)

    static let lsMonthly = CatalogItem(
        provider: .lemonsqueezy, productID: "10", variantID: "101", name: "Pro monthly", price: 999, currency: "USD", interval: monthly,
        trial: BillingInterval(unit: .day, count: 14))
    static let stripeMonthly = CatalogItem(
        provider: .stripe, productID: "prod_1", variantID: "price_1", name: "Pro", price: 499, currency: "USD", interval: monthly)
    static let stripeOnce = CatalogItem(provider: .stripe, productID: "prod_2", variantID: "price_2", name: "Icons", price: 999, currency: "USD")
    static let paystackMonthly = CatalogItem(
        provider: .paystack, productID: "PLN_a", variantID: "PLN_a", name: "Basic", price: 500_000, currency: "NGN", interval: monthly)

    /// The checkout application over `providers`, its catalog loaded.
    static func app(_ providers: [RecordingProvider]) async throws -> (CheckoutApplication, PostgresPool) {
        let pool = PostgresPool(configuration: try PostgresConfiguration(url: "postgresql://nobody@127.0.0.1:1/none?connect_timeout=1"))
        let sources = [
            CheckoutCatalogTests.FakeCatalogSource(.lemonsqueezy, items: [lsMonthly]),
            CheckoutCatalogTests.FakeCatalogSource(.stripe, items: [stripeMonthly, stripeOnce]),
            CheckoutCatalogTests.FakeCatalogSource(.paystack, items: [paystackMonthly]),
        ]
        let app = buildCheckoutApplication(
            auth: .jwt(try JWTVerifier(key: .hs256(secret: secret))), ownership: TestOwnership.proof,
            providers: ProviderRegistry(providers: providers), catalogSources: sources, pool: pool,
            publisher: CheckoutCatalogTests.DiscardingPublisher(), logger: logger, quotaStore: UserQuotaTests.MemoryQuotaStore())
        #expect(await app.catalog.refresh().ok)
        return (app, pool)
    }

    /// `POST /api/create-checkout` with `body` (JSON) and extra headers.
    static func post(_ app: CheckoutApplication, _ body: String, headers extra: [(String, String)] = []) async throws -> HTTPResponse {
        let token = try JWTSigner(hs256Secret: secret).sign([
            "sub": .string("buyer"), "email": .string("buyer@example.com"), "exp": .int(Int(Date().timeIntervalSince1970 + 600)),
        ])
        var headers: HTTPHeaders = ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]
        for (name, value) in extra { headers.add(name: name, value: value) }
        return await app.respond(
            to: try HTTPRequest(method: .post, target: "/api/create-checkout", headers: headers, body: Array(body.utf8)), logger: logger)
    }

    /// The status and the error body's `code`.
    static func answer(_ response: HTTPResponse) -> (HTTPStatus, String?) {
        let error = try? JSONDecoder().decode(APIErrorResponse.self, from: Data(response.body))
        return (response.status, error?.code)
    }

    @Test func malformedOfferFieldsAre400WithTheFieldsCode() async throws {
        let (app, pool) = try await Self.app([RecordingProvider(.lemonsqueezy)])
        for (body, code) in [
            (#"{"variantId":"ls_101","promotionCode":"SPRING 20"}"#, "invalid_promotion_code"),
            (#"{"variantId":"ls_101","promotionCode":""}"#, "invalid_promotion_code"),
            (#"{"variantId":"ls_101","promotionCode":"\#(String(repeating: "A", count: 65))"}"#, "invalid_promotion_code"),
            (#"{"variantId":"st_price_1","trialDays":0}"#, "invalid_trial_days"),
            (#"{"variantId":"st_price_1","trialDays":731}"#, "invalid_trial_days"),
            (#"{"variantId":"ls_101","locale":"english please"}"#, "invalid_locale"),
        ] {
            let (status, got) = Self.answer(try await Self.post(app, body))
            #expect(status == .badRequest && got == code, "\(body)")
        }
        // Not a whole number: the body does not decode.
        #expect(try await Self.post(app, #"{"variantId":"st_price_1","trialDays":1.5}"#).status == .badRequest)
        await pool.close()
    }

    @Test func whatAProviderCannotDoIs422BeforeItIsAsked() async throws {
        let providers = [RecordingProvider(.lemonsqueezy), RecordingProvider(.stripe), RecordingProvider(.paystack)]
        let (app, pool) = try await Self.app(providers)
        for (body, code) in [
            (#"{"variantId":"ps_PLN_a","customerEmail":"buyer@example.com","promotionCode":"SPRING20"}"#, "promotion_codes_unsupported"),
            (#"{"variantId":"ps_PLN_a","customerEmail":"buyer@example.com","trialDays":7}"#, "trial_unsupported"),
            (#"{"variantId":"ls_101","trialDays":7}"#, "trial_unsupported"),
            (#"{"variantId":"st_price_2","trialDays":7}"#, "trial_needs_subscription"),
        ] {
            let response = try await Self.post(app, body)
            let (status, got) = Self.answer(response)
            #expect(status == .unprocessableContent && got == code, "\(body): \(String(decoding: response.body, as: UTF8.self))")
        }
        #expect(providers.allSatisfy { $0.sent.isEmpty })
        await pool.close()
    }

    @Test func theOfferReachesTheProviderWithTheBodysLocaleOrElseAcceptLanguage() async throws {
        let lemon = RecordingProvider(.lemonsqueezy), stripe = RecordingProvider(.stripe)
        let (app, pool) = try await Self.app([lemon, stripe])
        let first = try await Self.post(
            app, #"{"variantId":"ls_101","promotionCode":"SPRING20"}"#, headers: [("Accept-Language", "fr-CH;q=0.4, de-de, *;q=0.9")])
        #expect(first.status == .ok, "\(String(decoding: first.body, as: UTF8.self))")
        let sentToLemon = try #require(lemon.sent.first)
        #expect(sentToLemon.promotionCode == "SPRING20" && sentToLemon.trialDays == nil && sentToLemon.locale?.tag == "de-DE")

        let second = try await Self.post(
            app, #"{"variantId":"st_price_1","trialDays":30,"locale":"pt-br"}"#, headers: [("Accept-Language", "de")])
        #expect(second.status == .ok)
        let sentToStripe = try #require(stripe.sent.first)
        #expect(sentToStripe.trialDays == 30 && sentToStripe.promotionCode == nil && sentToStripe.locale?.tag == "pt-BR")
        await pool.close()
    }

    @Test func aRefusedCodeIs422NamingTheProvidersReason() async throws {
        let refusal = ProviderError(
            provider: .lemonsqueezy, operation: "createCheckout", kind: .offerRefused, status: 422, message: "The discount code has expired.",
            code: "/data/attributes/checkout_data/discount_code")
        let (app, pool) = try await Self.app([RecordingProvider(.lemonsqueezy, refusal: refusal)])
        let response = try await Self.post(app, #"{"variantId":"ls_101","promotionCode":"EXPIRED10"}"#)
        let error = try JSONDecoder().decode(APIErrorResponse.self, from: Data(response.body))
        #expect(response.status == .unprocessableContent && error.code == "promotion_code_refused")
        #expect(error.error.contains("The discount code has expired."), "\(error.error)")
        await pool.close()
    }

    @Test func offerFieldsEnterTheIdempotencyHashOnlyWhenSent() {
        let plain = CreateCheckoutRequest(customerEmail: nil, variantId: "ls_101", productId: nil)
        var coded = plain
        coded.promotionCode = "SPRING20"
        var trial = plain
        trial.trialDays = 7
        var localized = plain
        localized.locale = "de"
        // The same value under another field hashes differently: each is tagged with its name.
        var refNamedLikeACode = plain
        refNamedLikeACode.ref = "SPRING20"
        let hashes = [plain, coded, trial, localized, refNamedLikeACode].map(CheckoutCreator.hash)
        #expect(Set(hashes).count == 5)
        #expect(CheckoutCreator.hash(plain) == CheckoutCreator.hash(CreateCheckoutRequest(customerEmail: nil, variantId: "ls_101", productId: nil)))
    }
}
