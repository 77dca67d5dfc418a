import BillingModel
import HTTPClient
import JSONCodec

extension StripeClient {
    /// The id (`promo_…`) of the active promotion code a buyer typed:
    /// `GET /v1/promotion_codes?code=…&active=true` (Stripe matches the code
    /// case-insensitively). A Checkout Session takes only the id.
    /// - Throws: ``ProviderError`` `.offerRefused` when Stripe has no active
    ///   code by that name (unknown, deactivated, expired or used up: Stripe
    ///   lists those as inactive).
    func promotionCodeID(_ code: String, operation: String) async throws(ProviderError) -> String {
        let document = try await send(
            StripeRequest(
                operation: operation, method: .get, path: "/v1/promotion_codes",
                query: [("code", code), ("active", "true"), ("limit", "1")]))
        guard document.json["object"]?.string == "list", let items = document.json["data"]?.array else {
            throw failure(operation, .decoding, "answer is not a list")
        }
        guard let id = items.first?["id"]?.string, ProviderIDs.isSafe(id) else {
            throw failure(operation, .offerRefused, "No active promotion code matches it (unknown, expired or used up)")
        }
        return id
    }
}
