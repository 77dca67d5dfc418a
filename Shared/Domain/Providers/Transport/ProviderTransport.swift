import ServiceSettings
import Foundation
import HTTPClient
import BillingModel
import JSONCodec
import Webhooks

/// Sends one provider API call and turns every failure into a ``ProviderError``.
///
/// Shared by every client; the provider-specific parts are the error body
/// format (each client's ``ProviderErrorFormat``), the headers and the body
/// encoding. `package`, so a
/// provider's API target of its own (Stripe's) sends through it too.
package struct ProviderTransport: Sendable, CustomStringConvertible {
    /// When a call may be repeated.
    package enum Retry: Sendable {
        /// The call is idempotent (or carries an idempotency key the provider
        /// honours): the HTTP client retries 429, 5xx and transient transport
        /// failures with jittered backoff (honouring `Retry-After`).
        case idempotent
        /// The call creates something and carries no idempotency key the provider
        /// honours: repeat it only when the provider certainly did not process it —
        /// a 429 (rejected before processing), a refused connection, an unresolved host.
        case unprocessedOnly
    }

    /// A request body, in the encoding the provider takes.
    package enum Body: Sendable {
        /// JSON (Lemon Squeezy, Paystack).
        case json(JSONValue)
        /// `application/x-www-form-urlencoded` text, already encoded (Stripe's `StripeFormEncoding.body`).
        case form(String)

        var bytes: [UInt8] {
            switch self {
            case .json(let value): value.encodedBytes()
            case .form(let text): Array(text.utf8)
            }
        }
    }

    let provider: Provider
    /// How the provider words its errors.
    let errorFormat: any ProviderErrorFormat
    let client: HTTPClient
    /// Without trailing slash; paths start with `/`.
    let baseURL: String
    /// Headers of every call, except `Authorization`.
    let headers: HTTPHeaders
    /// Sent as `Authorization: Bearer …`, added per request so that no
    /// printable value of this type holds the header.
    let bearer: Secret
    let retryPolicy: RetryPolicy
    /// Credentials scrubbed from any provider message we keep.
    let secrets: [Secret]
    /// Paces every attempt (retries included) when set; nil sends at once.
    var budget: (any ProviderRequestBudget)? = nil

    /// `package`, for a provider whose client is a target of its own (Stripe's `StripeAPI`).
    package init(
        provider: Provider, errorFormat: any ProviderErrorFormat, client: HTTPClient, baseURL: String, headers: HTTPHeaders, bearer: Secret,
        retryPolicy: RetryPolicy, secrets: [Secret], budget: (any ProviderRequestBudget)? = nil
    ) {
        self.provider = provider
        self.errorFormat = errorFormat
        self.client = client
        self.baseURL = baseURL
        self.headers = headers
        self.bearer = bearer
        self.retryPolicy = retryPolicy
        self.secrets = secrets
        self.budget = budget
    }

    /// Never the headers or secrets.
    package var description: String { "ProviderTransport(\(provider.rawValue), \(baseURL))" }

    /// Sends the call and returns the parsed JSON body of a 2xx answer.
    func send(
        _ operation: String, _ method: HTTPMethod, _ path: String, query: [(String, String)] = [],
        body: JSONValue? = nil, retry: Retry
    ) async throws(ProviderError) -> JSONValue {
        try await sendDocument(operation, method, path, query: query, body: body, retry: retry).json
    }

    /// Sends the call and returns the body of a 2xx answer byte for byte, and parsed.
    func sendDocument(
        _ operation: String, _ method: HTTPMethod, _ path: String, query: [(String, String)] = [],
        body: JSONValue? = nil, retry: Retry
    ) async throws(ProviderError) -> ProviderDocument {
        try await sendDocument(operation, method, path, query: query, encodedBody: body.map(Body.json), headers: [:], retry: retry)
    }

    /// Sends the call with a body in any encoding and headers of its own
    /// (e.g. an `Idempotency-Key`, the same on every retry of this call);
    /// returns the body of a 2xx answer byte for byte, and parsed.
    package func sendDocument(
        _ operation: String, _ method: HTTPMethod, _ path: String, query: [(String, String)], encodedBody body: Body?, headers extra: HTTPHeaders,
        retry: Retry
    ) async throws(ProviderError) -> ProviderDocument {
        var url = baseURL + path
        if !query.isEmpty { url += "?" + QueryString.encode(query) }
        var allHeaders = headers
        for (name, value) in extra { allHeaders.add(name: name, value: value) }
        allHeaders.add(name: "Authorization", value: "Bearer \(bearer.reveal())")
        var request = HTTPClientRequest(method: method, url: url, headers: allHeaders, retryPolicy: retryPolicy, idempotent: retry == .idempotent)
        if let body { request.body = body.bytes }

        let response: HTTPClientResponse
        switch (retry, budget) {
        case (.idempotent, nil):
            response = try await execute(operation, request)
        case (.idempotent, let budget?):
            // Attempt by attempt, so the budget paces retries too.
            response = try await executeStepwise(
                operation, request, budget: budget,
                retryStatus: { retryPolicy.retryableStatuses.contains($0) }, retryError: \.isRetryable)
        case (.unprocessedOnly, let budget):
            response = try await executeStepwise(
                operation, request, budget: budget,
                retryStatus: { $0 == 429 }, retryError: { $0 == .connectionRefused || $0 == .dns })
        }
        return ProviderDocument(body: response.body, json: try interpret(operation, response))
    }

    private func execute(_ operation: String, _ request: HTTPClientRequest) async throws(ProviderError) -> HTTPClientResponse {
        do {
            return try await client.execute(request)
        } catch let error as HTTPClientError {
            throw failure(operation, .unavailable, message: "no answer: \(error.description)")
        } catch {
            throw failure(operation, .unavailable, message: error is CancellationError ? "cancelled" : "no answer")
        }
    }

    /// One attempt at a time, each after the budget (if any) allows it,
    /// repeated while `retryStatus` / `retryError` say so and attempts are
    /// left, after the provider's `Retry-After` or the policy's jittered
    /// backoff. For `.unprocessedOnly` calls these are a 429 and a connection
    /// that never opened. A 429 also holds the budget for the delay it asks.
    private func executeStepwise(
        _ operation: String, _ request: HTTPClientRequest, budget: (any ProviderRequestBudget)?,
        retryStatus: (Int) -> Bool, retryError: (HTTPClientError) -> Bool
    ) async throws(ProviderError) -> HTTPClientResponse {
        var single = request
        single.retryPolicy = RetryPolicy.none
        var attempt = 1
        while true {
            let delay: Duration
            do {
                try await budget?.acquire()
                let response = try await client.execute(single)
                let wanted = response.status == 429 ? response.headers["Retry-After"].flatMap { RetryPolicy.parseRetryAfter($0) } : nil
                if response.status == 429 { budget?.backOff(for: wanted ?? retryPolicy.backoff(beforeRetry: attempt)) }
                guard retryStatus(response.status), attempt < retryPolicy.maxAttempts else { return response }
                if let wanted {
                    guard wanted <= retryPolicy.maxRetryAfter else { return response }
                    delay = wanted
                } else {
                    delay = retryPolicy.backoff(beforeRetry: attempt)
                }
            } catch let error as HTTPClientError {
                guard attempt < retryPolicy.maxAttempts, retryError(error) else {
                    throw failure(operation, .unavailable, message: "no answer: \(error.description)")
                }
                delay = retryPolicy.backoff(beforeRetry: attempt)
            } catch {
                throw failure(operation, .unavailable, message: error is CancellationError ? "cancelled" : "no answer")
            }
            do { try await Task.sleep(for: delay) } catch { throw failure(operation, .unavailable, message: "cancelled") }
            attempt += 1
        }
    }

    private func interpret(_ operation: String, _ response: HTTPClientResponse) throws(ProviderError) -> JSONValue {
        let parsed = JSONValue.decodeResponse(response.body)
        if response.isSuccess {
            guard let parsed else {
                throw failure(operation, .decoding, status: response.status, message: "response body is not JSON")
            }
            // Paystack signals failure in the envelope even on some 200s.
            if let detail = errorFormat.failureInSuccess(parsed) {
                throw failure(
                    operation, detail.kind ?? .validation, status: response.status, message: detail.message ?? "request failed", code: detail.code)
            }
            return parsed
        }
        let detail = errorFormat.detail(parsed)
        let kind = detail.kind ?? Self.kind(forStatus: response.status)
        let retryAfter = response.headers["Retry-After"].flatMap { RetryPolicy.parseRetryAfter($0) }
        throw failure(
            operation, kind, status: response.status,
            message: detail.message ?? "HTTP \(response.status) without a readable error message", code: detail.code, retryAfter: retryAfter)
    }

    static func kind(forStatus status: Int) -> ProviderError.Kind {
        switch status {
        case 401, 403: .unauthorized
        case 404: .notFound
        case 400, 409, 422: .validation
        case 429: .rateLimited
        case 500...599: .unavailable
        default: .rejected
        }
    }

    func failure(
        _ operation: String, _ kind: ProviderError.Kind, status: Int? = nil, message: String, code: String? = nil, retryAfter: Duration? = nil
    ) -> ProviderError {
        ProviderError(
            provider: provider, operation: operation, kind: kind, status: status, message: scrub(message), code: code.map(scrub),
            retryAfter: retryAfter)
    }

    /// Removes credentials, should a provider (or a proxy) ever echo one back.
    func scrub(_ text: String) -> String {
        var text = text
        for secret in secrets where secret.reveal().count >= 4 {
            text = text.replacingOccurrences(of: secret.reveal(), with: "<redacted>")
        }
        return text
    }
}
