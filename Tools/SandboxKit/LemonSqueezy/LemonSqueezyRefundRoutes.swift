import Foundation

/// `POST /v1/orders/{id}/refund` and `POST /v1/subscription-invoices/{id}/refund`
/// as Lemon Squeezy documents them: a JSON:API body of the resource's type
/// and id with an optional `attributes.amount` (cents; absent refunds all
/// that is left), answered 200 with the order or invoice whose
/// `refunded_amount` is the running total. The webhooks follow as the
/// dashboard's refunds send them (``LemonSqueezyLifecycle/refundOrder(_:amount:state:)``).
extension LemonSqueezyAPI {
    func refundOrder(_ idText: String, _ request: SandboxRequest) throws(SandboxError) -> HandlerResult {
        let id = try intID(idText, "order")
        let amount = try refundAmount(request, type: "orders", id: id)
        let lifecycle = lifecycle
        let (order, events) = try store.withState { (state) throws(SandboxError) -> (LSOrder, [OutgoingWebhook]) in
            let events = try lifecycle.refundOrder(id, amount: amount, state: &state)
            return (state.lsOrders[id]!, events)
        }
        return HandlerResult(ok(resources.document(resources.order(order), selfPath: "/orders/\(id)")), events: events)
    }

    func refundInvoice(_ idText: String, _ request: SandboxRequest) throws(SandboxError) -> HandlerResult {
        let id = try intID(idText, "subscription invoice")
        let amount = try refundAmount(request, type: "subscription-invoices", id: id)
        let lifecycle = lifecycle
        let (invoice, events) = try store.withState { (state) throws(SandboxError) -> (LSInvoice, [OutgoingWebhook]) in
            let events = try lifecycle.refundInvoiceByAPI(id, amount: amount, state: &state)
            return (state.lsInvoices[id]!, events)
        }
        return HandlerResult(ok(resources.document(resources.invoice(invoice), selfPath: "/subscription-invoices/\(id)")), events: events)
    }

    /// The optional `data.attributes.amount`, after the document's type and id are checked.
    private func refundAmount(_ request: SandboxRequest, type: String, id: Int) throws(SandboxError) -> Int? {
        guard request.body.count <= 64 * 1024, let body = JSONValue.parse(request.body), let data = body["data"], data.objectValue != nil else {
            throw .invalid("The request body must be a JSON:API document with a data object.", pointer: "/data")
        }
        guard data["type"]?.stringValue == type else { throw .invalid("The type must be \(type).", pointer: "/data/type") }
        if let bodyID = data["id"], (bodyID.intValue ?? bodyID.stringValue.flatMap { Int($0) }) != id {
            throw .invalid("The id does not match the URL.", pointer: "/data/id")
        }
        guard let amount = data["attributes"]?["amount"], !amount.isNull else { return nil }
        guard let cents = amount.intValue, cents > 0 else {
            throw .invalid("The amount must be a positive integer.", pointer: "/data/attributes/amount")
        }
        return cents
    }
}
