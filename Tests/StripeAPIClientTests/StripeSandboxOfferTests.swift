import BillingModel
import Foundation
import JSONCodec
import Providers
import Testing

/// ``StripeClient`` offers over HTTP against the sandbox's emulated Stripe:
/// Stripe's refusal of a discount, read from its error answer, is an offer
/// refusal; an accepted one lowers the session's total.
@Suite("Stripe offers against the sandbox")
struct StripeSandboxOfferTests {
    func request(_ price: String, code: String?) throws -> CheckoutRequest {
        let email = try #require(EmailAddress("offers@example.com"))
        return CheckoutRequest(
            variantID: price, email: email, appUserID: "user-offers", checkoutID: UUID().uuidString.lowercased(),
            ownershipProof: "proof-offers", expiresAt: StripeSandboxClientTests.expiry, promotionCode: code, locale: CheckoutLocale("fr-CA"))
    }

    @Test func aCodeForAnotherProductIsRefusedWithStripesReason() async throws {
        try await StripeSandbox.with { sandbox in
            // ICONS50 is active, so the lookup finds it; the session names the premium price, which it does not apply to.
            let error = await #expect(throws: ProviderError.self) {
                try await sandbox.client().createCheckout(try request("price_SbxPremiumMonthly", code: "ICONS50"))
            }
            #expect(error?.kind == .offerRefused && error?.status == 400)
            #expect(error?.message.contains("cannot be applied") == true, "\(String(describing: error))")
        }
    }

    @Test func anAcceptedCodeLowersTheSessionsTotal() async throws {
        try await StripeSandbox.with { sandbox in
            let client = sandbox.client()
            let checkout = try await client.createCheckout(try request("price_SbxProIcons", code: "icons50"))
            let session = try await client.checkoutSessionDocument(id: checkout.providerCheckoutID).json
            #expect(session["amount_total"]?.int64 == 500 && session["total_details", "amount_discount"]?.int64 == 499)
            #expect(session["locale"]?.string == "fr-CA")
        }
    }
}
