import BillingModel
import HTTPClient
import JSONCodec

extension LemonSqueezyClient {
    /// `POST /v1/orders/{id}/refund` for an order, `POST
    /// /v1/subscription-invoices/{id}/refund` for a subscription's payment,
    /// with `amount` (cents) when partial; the answer is the order or invoice
    /// with its running `refunded_amount`.
    ///
    /// Lemon Squeezy takes no idempotency key, so the call is repeated only
    /// when it certainly was not processed (429, refused connection): after a
    /// timeout the caller gets `.unavailable` and must not simply retry.
    public func refund(_ request: RefundRequest) async throws(ProviderError) -> ProviderRefund {
        let operation = "refund"
        let type = request.purchaseType == .order ? "orders" : "subscription-invoices"
        guard ProviderIDs.isNumeric(request.paymentID) else {
            throw transport.failure(operation, .validation, message: "\(type) id must be numeric")
        }
        let body = LemonSqueezyRequests.refund(type: type, id: request.paymentID, amount: request.amount)
        let document = try await transport.send(
            operation, .post, "/v1/\(type)/\(request.paymentID)/refund", body: body, retry: .unprocessedOnly)
        guard document["data", "type"]?.string == type, let attributes = document["data", "attributes"] else {
            throw transport.failure(operation, .decoding, message: "response is not the \(type) resource refunded")
        }
        return ProviderRefund(
            provider: .lemonsqueezy, id: document["data", "id"]?.string, status: attributes["status"]?.string,
            // `refunded_amount` is the running total of every refund, not this one's.
            amount: request.amount, currency: attributes["currency"]?.string)
    }
}
