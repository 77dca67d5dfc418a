import BillingModel
import HTTPClient
import JSONCodec

extension PaystackClient {
    /// `POST /refund` with `transaction` (the transaction's id, which is what
    /// the projection keeps for an order and a subscription's charge) and
    /// `amount` in subunits when partial. Paystack queues the refund (`data.status`
    /// `pending`) and tells of it with `refund.processed` later.
    ///
    /// Paystack takes no idempotency key, so the call is repeated only when it
    /// certainly was not processed (429, refused connection).
    public func refund(_ request: RefundRequest) async throws(ProviderError) -> ProviderRefund {
        let operation = "refund"
        guard ProviderIDs.isSafe(request.paymentID) else {
            throw transport.failure(operation, .validation, message: "transaction id or reference has unexpected characters")
        }
        var body: JSONObject = ["transaction": .string(request.paymentID)]
        if let amount = request.amount { body["amount"] = .integer(amount) }
        let document = try await transport.send(operation, .post, "/refund", body: .object(body), retry: .unprocessedOnly)
        guard let data = document["data"], data["status"] != nil || data["id"] != nil else {
            throw transport.failure(operation, .decoding, message: "response lacks the refund in data")
        }
        return ProviderRefund(
            provider: .paystack, id: data["id"]?.string, status: data["status"]?.string,
            amount: data["amount"]?.int64 ?? request.amount, currency: data["currency"]?.string)
    }
}
