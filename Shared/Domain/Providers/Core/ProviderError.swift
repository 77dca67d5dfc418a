import BillingModel

/// A failed call to a payment provider's API, in provider-neutral form.
///
/// It says which provider, which call (``operation``, e.g. `createCheckout`)
/// and what the provider answered (HTTP status plus the provider's own error
/// message, parsed from its error format). It never carries request headers,
/// API keys or the request body; messages are cut to
/// ``maximumMessageLength`` and scrubbed of the configured secrets.
public struct ProviderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure, which decides what a caller can do about it.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// 401/403, or Paystack's "Invalid key": the credentials are wrong.
        case unauthorized
        /// 404: the id does not exist for this account (or mode).
        case notFound
        /// 400/409/422, or a request refused before sending (bad id, missing amount).
        case validation
        /// 429 after the retries allowed for the call; see ``ProviderError/retryAfter``.
        case rateLimited
        /// 5xx, or no answer at all (timeout, refused connection, DNS, TLS).
        case unavailable
        /// The provider answered 2xx with a body we cannot read.
        case decoding
        /// Any other 4xx (e.g. 405).
        case rejected
        /// The provider refused the offer the checkout asked for: a promotion
        /// code it does not know, that expired or does not apply, or a trial it
        /// cannot give; ``ProviderError/message`` holds its reason.
        case offerRefused
    }

    /// Longest provider message kept.
    public static let maximumMessageLength = 300

    public let provider: Provider
    /// The client method that failed, e.g. `catalog`, `createCheckout`, `cancelSubscription`.
    public let operation: String
    public let kind: Kind
    /// HTTP status of the provider's answer; nil when there was none.
    public let status: Int?
    /// The provider's own error message (or ours, when it sent none).
    public let message: String
    /// The provider's machine-readable error code when it has one
    /// (Paystack `code`, e.g. `duplicate_reference`; Lemon Squeezy `source.pointer`).
    public let code: String?
    /// How long the provider asked us to wait (`Retry-After`), when it said.
    public let retryAfter: Duration?

    public init(
        provider: Provider, operation: String, kind: Kind, status: Int? = nil, message: String, code: String? = nil, retryAfter: Duration? = nil
    ) {
        self.provider = provider
        self.operation = operation
        self.kind = kind
        self.status = status
        self.message = String(message.prefix(Self.maximumMessageLength))
        self.code = code.map { String($0.prefix(100)) }
        self.retryAfter = retryAfter
    }

    /// e.g. `paystack createCheckout failed: validation (HTTP 400): Duplicate Transaction Reference [duplicate_reference]`.
    public var description: String {
        var text = "\(provider.rawValue) \(operation) failed: \(kind.rawValue)"
        if let status { text += " (HTTP \(status))" }
        text += ": \(message)"
        if let code { text += " [\(code)]" }
        return text
    }

    /// Whether trying the same call later may succeed (rate limit, outage).
    public var isTransient: Bool { kind == .rateLimited || kind == .unavailable }
}
