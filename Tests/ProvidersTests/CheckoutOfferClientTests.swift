import BillingModel
import Foundation
import JSONCodec
import Providers
import Testing

/// Offers at checkout through the Lemon Squeezy and Paystack clients against
/// the provider sandbox on a real port: what each sends, and a refused code
/// read from the provider's error answer as ``ProviderError/Kind/offerRefused``.
@Suite struct CheckoutOfferClientTests {
    func request(variant: String, code: String? = nil, trialDays: Int? = nil) throws -> CheckoutRequest {
        let email = try #require(EmailAddress("offer-buyer@example.com"))
        return CheckoutRequest(
            variantID: variant, email: email, appUserID: "user-offer-1",
            checkoutID: UUID().uuidString.lowercased(), ownershipProof: "proof-offer-1", promotionCode: code, trialDays: trialDays,
            locale: CheckoutLocale("de-DE"))
    }

    @Test func lemonSqueezySendsTheCodeAsDiscountCodeAndNoLocale() async throws {
        try await LiveSandbox.with { sandbox in
            let checkout = try await sandbox.lemonSqueezy().createCheckout(try request(variant: "2", code: "SPRING20"))
            let stored = try await sandbox.rawGet("/lemonsqueezy/v1/checkouts/\(checkout.providerCheckoutID)", key: LiveSandbox.lsKey)
            #expect(stored["data", "attributes", "checkout_data", "discount_code"]?.string == "SPRING20")
            // Lemon Squeezy's checkout API documents no language parameter: nothing is sent for the locale.
            #expect(stored["data", "attributes", "checkout_options", "locale"] == nil)
        }
    }

    @Test func lemonSqueezyRefusalsOfTheCodeAreOfferRefusedWithItsReason() async throws {
        try await LiveSandbox.with { sandbox in
            let client = sandbox.lemonSqueezy()
            let error = await #expect(throws: ProviderError.self) { try await client.createCheckout(try request(variant: "2", code: "EXPIRED10")) }
            #expect(error?.kind == .offerRefused && error?.status == 422)
            #expect(error?.message == "The discount code has expired.")
            // Any other refusal keeps its kind.
            let other = await #expect(throws: ProviderError.self) { try await client.createCheckout(try request(variant: "999")) }
            #expect(other?.kind == .validation)
        }
    }

    @Test func lemonSqueezyAndPaystackRefuseATrialAndPaystackACode() async throws {
        try await LiveSandbox.with { sandbox in
            let lemon = await #expect(throws: ProviderError.self) {
                try await sandbox.lemonSqueezy().createCheckout(try request(variant: "2", trialDays: 7))
            }
            #expect(lemon?.kind == .offerRefused)
            let paystack = sandbox.paystack()
            for (code, days) in [("SPRING20", nil), (nil, 7)] as [(String?, Int?)] {
                let error = await #expect(throws: ProviderError.self) {
                    try await paystack.createCheckout(try request(variant: "PLN_sbxpremmonth01", code: code, trialDays: days))
                }
                #expect(error?.kind == .offerRefused)
            }
        }
    }

    @Test func theCatalogCarriesALemonSqueezyVariantsOwnTrial() async throws {
        try await LiveSandbox.with { sandbox in
            let items = try await sandbox.lemonSqueezy().catalog()
            #expect(items.first { $0.variantID == "3" }?.trial == BillingInterval(unit: .day, count: 14))
            #expect(items.first { $0.variantID == "2" }?.trial == nil)
            let answer = ProductListResponse(items: items)
            let yearly = try #require(answer.products.data.first { $0.variantId == "ls_3" })
            #expect(yearly.attributes.trialInterval == .day && yearly.attributes.trialIntervalCount == 14)
            #expect(yearly.attributes.acceptsPromotionCodes && !yearly.attributes.checkoutSetsTrial)
        }
    }
}
