import BillingModel
import Webhooks
import HTTPClient

/// One call to Stripe's API as ``StripeClient`` makes it, before any HTTP:
/// what ``StripeTransport`` sends, and what a test's fake transport sees.
public struct StripeRequest: Sendable {
    /// The client method making the call (`catalog`, `createCheckout`), named in a ``ProviderError``.
    public let operation: String
    public let method: HTTPMethod
    /// From `/v1`, e.g. `/v1/checkout/sessions`; ids in it were checked safe.
    public let path: String
    /// Query parameters, in order (`limit`, `starting_after`, `created[gte]`).
    public let query: [(name: String, value: String)]
    /// The form body of a POST (``StripeFormEncoding``); empty for a GET.
    public let form: [StripeField]
    /// Sent as `Idempotency-Key` on a POST, the same on every retry of this
    /// call, so Stripe runs the call at most once.
    public let idempotencyKey: String?

    public init(
        operation: String, method: HTTPMethod, path: String, query: [(name: String, value: String)] = [], form: [StripeField] = [],
        idempotencyKey: String? = nil
    ) {
        self.operation = operation
        self.method = method
        self.path = path
        self.query = query
        self.form = form
        self.idempotencyKey = idempotencyKey
    }

    /// The query value named `name`, if any.
    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }
}
