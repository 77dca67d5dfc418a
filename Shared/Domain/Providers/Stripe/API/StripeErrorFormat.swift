import BillingModel
import Webhooks
import JSONCodec

/// Reads Stripe's error body, `{"error": {"type", "code", "message", "param", …}}`:
/// the message, and the `code` (`resource_missing`, `rate_limit`) or, without
/// one, the `type` (`idempotency_error`, `card_error`) as the error's code.
/// The HTTP status decides the kind (400 validation, 401 unauthorized, 402
/// rejected, 404 not found, 429 rate limited), except that an error naming
/// the session's `discounts` is the promotion code's refusal (not for this
/// price, first-time buyers only, below its minimum): `offerRefused`.
struct StripeErrorFormat: ProviderErrorFormat {
    func detail(_ body: JSONValue?) -> ProviderErrorDetail {
        let error = body?["error"]
        let name = error?["param"]?.string
        let param = name.map { " (\($0))" } ?? ""
        let message = error?["message"]?.string.map { $0 + param }
        return ProviderErrorDetail(
            message: message, code: error?["code"]?.string ?? error?["type"]?.string,
            kind: name?.hasPrefix("discounts") == true ? .offerRefused : nil)
    }
}
