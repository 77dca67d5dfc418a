import Foundation

/// Subscriptions (`GET`/`PATCH`/`DELETE`), orders and subscription invoices.
extension LemonSqueezyAPI {
    func getSubscription(_ idText: String) throws(SandboxError) -> SandboxResponse {
        let id = try intID(idText, "subscription")
        guard let s = store.read({ $0.lsSubscriptions[id] }) else { throw .notFound("No subscription \(id).") }
        return ok(resources.document(resources.subscription(s), selfPath: "/subscriptions/\(id)"))
    }

    func listSubscriptions(_ request: SandboxRequest) -> SandboxResponse {
        var items = store.read { Array($0.lsSubscriptions.values) }.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }
        let filters: [(String, (LSSubscription) -> String)] = [
            ("store_id", { String($0.storeID) }), ("order_id", { String($0.orderID) }), ("order_item_id", { String($0.orderItemID) }),
            ("product_id", { String($0.productID) }), ("variant_id", { String($0.variantID) }), ("status", { $0.status }),
        ]
        for (name, field) in filters { if let want = request.queryValue("filter[\(name)]") { items = items.filter { field($0) == want } } }
        if let email = request.queryValue("filter[user_email]") { items = items.filter { $0.userEmail.lowercased() == email.lowercased() } }
        let window = window(request, total: items.count)
        return ok(
            listDocument(request, path: "/subscriptions", sort: "-createdAt", items: window.slice(items).map(resources.subscription), window: window))
    }

    /// PATCH: `cancelled` (true cancels, false resumes), `pause` (object pauses, null unpauses),
    /// `variant_id` with `invoice_immediately` and `disable_prorations`.
    func updateSubscription(_ idText: String, _ request: SandboxRequest) throws(SandboxError) -> HandlerResult {
        let id = try intID(idText, "subscription")
        guard request.body.count <= 64 * 1024, let body = JSONValue.parse(request.body), let data = body["data"], data.objectValue != nil else {
            throw .invalid("The request body must be a JSON:API document with a data object.", pointer: "/data")
        }
        if let bodyID = data["id"], bodyID.intValue != id { throw .invalid("The id does not match the URL.", pointer: "/data/id") }
        let attributes = data["attributes"] ?? [:]
        var resumesAt: Date?
        if let pause = attributes["pause"], let text = pause["resumes_at"]?.stringValue {
            guard let date = Formatting.parseISO(text) else {
                throw .invalid("The pause.resumes at is not a valid date.", pointer: "/data/attributes/pause/resumes_at")
            }
            resumesAt = date
        }
        var flags: [String: Bool] = [:]
        for name in ["invoice_immediately", "disable_prorations"] {
            guard let value = attributes[name], !value.isNull else { continue }
            guard let flag = value.boolValue else {
                throw .invalid(
                    "The \(name.replacingOccurrences(of: "_", with: " ")) field must be true or false.", pointer: "/data/attributes/\(name)")
            }
            flags[name] = flag
        }
        let lifecycle = lifecycle
        let (subscription, events) = try store.withState { (state) throws(SandboxError) -> (LSSubscription, [OutgoingWebhook]) in
            guard state.lsSubscriptions[id] != nil else { throw .notFound("No subscription \(id).") }
            var events: [OutgoingWebhook] = []
            if let variant = attributes["variant_id"], !variant.isNull {
                guard let variantID = variant.intValue else {
                    throw .invalid("The variant id must be an integer.", pointer: "/data/attributes/variant_id")
                }
                events += try lifecycle.changeVariant(
                    subscriptionID: id, variantID: variantID, invoiceImmediately: flags["invoice_immediately"] ?? false,
                    disableProrations: flags["disable_prorations"] ?? false, state: &state)
            }
            if let cancelled = attributes["cancelled"]?.boolValue {
                events += try lifecycle.apply(cancelled ? .cancel : .resume, subscriptionID: id, state: &state)
            }
            if let pause = attributes["pause"] {
                if pause.isNull {
                    events += try lifecycle.apply(.unpause, subscriptionID: id, state: &state)
                } else {
                    events += try lifecycle.apply(
                        .pause, subscriptionID: id, pauseMode: pause["mode"]?.stringValue, resumesAt: resumesAt, state: &state)
                }
            }
            return (state.lsSubscriptions[id]!, events)
        }
        return HandlerResult(ok(resources.document(resources.subscription(subscription), selfPath: "/subscriptions/\(id)")), events: events)
    }

    /// DELETE cancels: `status: cancelled`, `cancelled: true`, `ends_at` = `renews_at`.
    func cancelSubscription(_ idText: String) throws(SandboxError) -> HandlerResult {
        let id = try intID(idText, "subscription")
        let lifecycle = lifecycle
        let (subscription, events) = try store.withState { (state) throws(SandboxError) -> (LSSubscription, [OutgoingWebhook]) in
            let events = try lifecycle.apply(.cancel, subscriptionID: id, state: &state)
            return (state.lsSubscriptions[id]!, events)
        }
        return HandlerResult(ok(resources.document(resources.subscription(subscription), selfPath: "/subscriptions/\(id)")), events: events)
    }

    func getOrder(_ idText: String) throws(SandboxError) -> SandboxResponse {
        let id = try intID(idText, "order")
        guard let order = store.read({ $0.lsOrders[id] }) else { throw .notFound("No order \(id).") }
        return ok(resources.document(resources.order(order), selfPath: "/orders/\(id)"))
    }

    func listOrders(_ request: SandboxRequest) -> SandboxResponse {
        var items = store.read { Array($0.lsOrders.values) }.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }
        if let email = request.queryValue("filter[user_email]") { items = items.filter { $0.userEmail.lowercased() == email.lowercased() } }
        if let storeID = request.queryValue("filter[store_id]") { items = items.filter { String($0.storeID) == storeID } }
        let window = window(request, total: items.count)
        return ok(listDocument(request, path: "/orders", sort: "-createdAt", items: window.slice(items).map(resources.order), window: window))
    }

    func getInvoice(_ idText: String) throws(SandboxError) -> SandboxResponse {
        let id = try intID(idText, "subscription invoice")
        guard let invoice = store.read({ $0.lsInvoices[id] }) else { throw .notFound("No subscription invoice \(id).") }
        return ok(resources.document(resources.invoice(invoice), selfPath: "/subscription-invoices/\(id)"))
    }
}
