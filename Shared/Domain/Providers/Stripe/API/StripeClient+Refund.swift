import BillingModel
import HTTPClient
import JSONCodec

extension StripeClient {
    /// `POST /v1/refunds` with `payment_intent` (or `charge`) and `amount` when
    /// partial, under an `Idempotency-Key` made from the request's key: a
    /// repeat (the transport's retry, or the caller's own after a lost answer)
    /// gets the same refund back, never a second one.
    ///
    /// The projection names a subscription's payment by its invoice (`in_…`);
    /// the invoice's PaymentIntent is read first (`GET /v1/invoices/{id}`,
    /// payments expanded, as the reconciler reads it).
    public func refund(_ request: RefundRequest) async throws(ProviderError) -> ProviderRefund {
        let operation = "refund"
        try checkID(request.paymentID, operation, what: "payment id")
        let target: StripeField
        switch request.paymentID.prefix(3) {
        case "pi_": target = StripeField("payment_intent", .string(request.paymentID))
        case "ch_", "py_": target = StripeField("charge", .string(request.paymentID))
        case "in_": target = StripeField("payment_intent", .string(try await paymentIntent(ofInvoice: request.paymentID, operation)))
        default: throw failure(operation, .validation, "payment id names no PaymentIntent, charge or invoice")
        }
        var form = [target]
        if let amount = request.amount { form.append(StripeField("amount", .string(String(amount)))) }
        guard let key = StripeIdempotencyKey.refund(request.idempotencyKey) else {
            throw failure(operation, .validation, "idempotency key has unexpected characters")
        }
        let refund = try await send(StripeRequest(operation: operation, method: .post, path: "/v1/refunds", form: form, idempotencyKey: key)).json
        guard refund["object"]?.string == "refund", let id = refund["id"]?.string else {
            throw failure(operation, .decoding, "answer is not a refund")
        }
        return ProviderRefund(
            provider: provider, id: id, status: refund["status"]?.string, amount: refund["amount"]?.int64, currency: refund["currency"]?.string)
    }

    /// The PaymentIntent that paid the invoice: `payment_intent` before API
    /// `2025-03-31.basil`, its paid `payments` entry from then on.
    private func paymentIntent(ofInvoice id: String, _ operation: String) async throws(ProviderError) -> String {
        let invoice = try await send(
            StripeRequest(operation: operation, method: .get, path: "/v1/invoices/\(id)", query: [("expand[]", "payments")])
        ).json
        let payments = invoice["payments", "data"]?.array ?? []
        let paid = payments.first { $0["status"]?.string == "paid" } ?? payments.first
        guard let intent = invoice["payment_intent"]?.string ?? invoice["payment_intent", "id"]?.string ?? paid?["payment", "payment_intent"]?.string
        else {
            throw failure(operation, .validation, "invoice \(id) has no payment to refund")
        }
        try checkID(intent, operation, what: "payment intent id")
        return intent
    }
}
