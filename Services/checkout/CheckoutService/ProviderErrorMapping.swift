import HTTPServer
import BillingModel
import Providers

extension ProviderError {
    /// The answer to give an app when a provider call failed: 503 with
    /// `Retry-After` when trying later may help (rate limit, outage), else 502.
    /// The message names the provider and the class of failure only: never
    /// the provider's own text, keys or request details.
    var httpError: HTTPError {
        switch kind {
        case .rateLimited, .unavailable:
            let seconds = retryAfter.map { max(1, Int($0.components.seconds)) } ?? 5
            let reason = kind == .rateLimited ? "is rate limiting requests" : "is unavailable"
            return HTTPError(
                .serviceUnavailable, "Payment provider \(provider.rawValue) \(reason); try again later",
                headers: ["Retry-After": String(min(seconds, 3600))])
        case .decoding:
            return HTTPError(502, "Payment provider \(provider.rawValue) sent an answer that could not be read")
        case .offerRefused:
            return HTTPError(.unprocessableContent, "Payment provider \(provider.rawValue) refused the offer: \(message)", code: "offer_refused")
        case .unauthorized, .notFound, .validation, .rejected:
            return HTTPError(502, "Payment provider \(provider.rawValue) rejected the request")
        }
    }
}
