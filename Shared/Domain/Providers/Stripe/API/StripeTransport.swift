import BillingModel
import Webhooks
import HTTPClient

/// Sends one ``StripeRequest``: the seam between ``StripeClient`` (what to
/// ask, and how to read the answer) and HTTP. ``StripeHTTPTransport`` is the
/// real one; tests put a fake here to run the client without a server.
public protocol StripeTransport: Sendable {
    /// The 2xx answer's body, byte for byte and parsed.
    /// - Throws: ``ProviderError`` naming the request's operation, for any other answer or none.
    func send(_ request: StripeRequest) async throws(ProviderError) -> ProviderDocument
}
