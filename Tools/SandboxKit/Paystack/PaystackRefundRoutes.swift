import Foundation

/// `POST /refund` as Paystack documents it: `transaction` (the transaction's
/// id or reference) and an optional `amount` in subunits (absent: all that is
/// left). Paystack queues the refund and answers `data.status` `pending`;
/// `refund.pending` then `refund.processed` follow
/// (``PaystackLifecycle/refund(reference:amount:state:)``). More than is left
/// is refused with 400, as are unpaid and fully reversed transactions.
extension PaystackAPI {
    func createRefund(_ request: SandboxRequest) throws(SandboxError) -> HandlerResult {
        guard let body = jsonBody(request) else { throw .invalid("Invalid JSON body") }
        // Clients send the id as a number or a string, the reference as a string.
        guard let key = body["transaction"]?.stringValue ?? body["transaction"]?.intValue.map(String.init), !key.isEmpty else {
            throw .invalid("Transaction reference or id is required")
        }
        var amount: Int?
        if let value = body["amount"], !value.isNull {
            guard let subunits = value.intValue ?? value.stringValue.flatMap({ Int($0) }) else { throw .invalid("Amount must be a number") }
            amount = subunits
        }
        let lifecycle = lifecycle
        let now = context.clock.now()
        let (data, events) = try store.withState { (state) throws(SandboxError) -> (JSONValue, [OutgoingWebhook]) in
            guard let t = state.psTransactions[key] ?? state.psTransactions.values.first(where: { String($0.id) == key }) else {
                throw .notFound("Transaction not found")
            }
            let before = t.refundedAmount
            let events = try lifecycle.refund(reference: t.reference, amount: amount, state: &state)
            let after = state.psTransactions[t.reference]!
            let data: JSONValue = [
                "transaction": [
                    "id": .int(t.id), "reference": .string(t.reference), "amount": .int(t.amount), "currency": .string(t.currency),
                    "status": .string(after.status),
                ],
                "integration": 100_032, "deducted_amount": 0, "channel": .null, "merchant_note": .string("Refund for transaction \(t.reference)"),
                "customer_note": .string("Refund for transaction \(t.reference)"), "status": "pending", "refunded_by": .null,
                "expected_at": .string(Formatting.paystack(now.addingTimeInterval(5 * 86_400))), "currency": .string(t.currency),
                "domain": "test", "amount": .int(after.refundedAmount - before), "fully_deducted": false, "id": .int(state.next(.psRefund)),
                "createdAt": .string(Formatting.paystack(now)), "updatedAt": .string(Formatting.paystack(now)),
            ]
            return (data, events)
        }
        return HandlerResult(resources.ok("Refund has been queued for processing", data: data), events: events)
    }
}
