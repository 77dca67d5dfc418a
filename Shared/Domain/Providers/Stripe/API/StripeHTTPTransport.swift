import ProviderConfiguration
import Webhooks
import BillingModel
import HTTPClient
import ServiceSettings

/// ``StripeTransport`` over HTTP, through the providers' shared transport
/// (retries with backoff, the request budget, errors as ``ProviderError``
/// with secrets scrubbed): `Authorization: Bearer <secret key>`, the pinned
/// `Stripe-Version`, form-encoded POST bodies and their `Idempotency-Key`.
///
/// Retries: every call is retried on 429, 5xx and transient failures. A GET
/// reads; a POST carries an idempotency key made once per call, so a repeat
/// after a lost answer gets Stripe's stored answer instead of running again.
/// A POST without a key (no client method sends one) is repeated only when
/// Stripe certainly did not see it.
public struct StripeHTTPTransport: StripeTransport, CustomStringConvertible {
    let transport: ProviderTransport

    /// - Parameters:
    ///   - provider: the value Storefront names Stripe by (``ProviderError/provider``).
    ///   - httpClient: the process's shared client.
    ///   - retryPolicy: backoff for retried calls.
    ///   - budget: paces every attempt, retries included (nil: at once).
    public init(
        provider: Provider, configuration: StripeConfiguration, httpClient: HTTPClient, retryPolicy: RetryPolicy = ProviderRetry.defaultPolicy,
        budget: (any ProviderRequestBudget)? = nil
    ) {
        transport = ProviderTransport(
            provider: provider, errorFormat: StripeErrorFormat(), client: httpClient, baseURL: configuration.apiBaseURL,
            headers: HTTPHeaders([("Accept", "application/json"), ("Stripe-Version", configuration.apiVersion)]),
            bearer: configuration.secretKey ?? Secret(""), retryPolicy: retryPolicy,
            secrets: ([configuration.secretKey].compactMap { $0 }) + configuration.webhookSecrets, budget: budget)
    }

    /// Names the endpoint, never the key.
    public var description: String { "StripeHTTPTransport(\(transport.description))" }

    public func send(_ request: StripeRequest) async throws(ProviderError) -> ProviderDocument {
        var headers = HTTPHeaders()
        var body: ProviderTransport.Body?
        if request.method == .post {
            headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            if let key = request.idempotencyKey { headers.add(name: "Idempotency-Key", value: key) }
            body = .form(StripeFormEncoding.body(request.form))
        }
        let retry: ProviderTransport.Retry = request.method != .post || request.idempotencyKey != nil ? .idempotent : .unprocessedOnly
        return try await transport.sendDocument(
            request.operation, request.method, request.path, query: request.query.map { ($0.name, $0.value) }, encodedBody: body,
            headers: headers, retry: retry)
    }
}
