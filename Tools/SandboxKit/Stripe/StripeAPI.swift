import Foundation

/// The emulated Stripe API under `/stripe/v1/…`: Bearer secret key,
/// form-encoded bodies, `Idempotency-Key` on POSTs, cursor pagination,
/// Stripe's error JSON.
struct StripeAPI {
    let context: SandboxContext
    let store: SandboxStore
    let rateLimiter: RateLimiter?

    var resources: StripeResources { StripeResources(context: context) }
    var lifecycle: StripeLifecycle { StripeLifecycle(resources: resources, now: context.clock.now()) }

    /// `path` is the part after `/stripe/v1`.
    func handle(_ request: SandboxRequest, path: String) -> HandlerResult {
        if let limiter = rateLimiter, case .limited(let retryAfter) = limiter.check(key: "stripe", now: context.clock.now()) {
            return HandlerResult(StripeErrors.rateLimited(retryAfter: retryAfter))
        }
        let auth = request.headers["Authorization"]
        guard auth == "Bearer \(context.configuration.stripe.secretKey)" else {
            return HandlerResult(StripeErrors.invalidKey(auth.map { String($0.dropFirst("Bearer ".count)) }))
        }
        guard request.method == "POST" || request.method == "DELETE" else { return route(request, path: path, params: .object([])) }
        guard let params = StripeFormBody.parse(request.body) else {
            return HandlerResult(StripeErrors.invalid("Invalid request body: expected application/x-www-form-urlencoded parameters."))
        }
        guard let key = request.headers["Idempotency-Key"], !key.isEmpty else { return route(request, path: path, params: params) }
        return idempotent(key: String(key.prefix(255)), request: request, path: path, params: params)
    }

    /// Replays the stored answer for a key used before with the same
    /// parameters (`Idempotent-Replayed: true`, no new webhooks); refuses one
    /// reused with other parameters; runs and stores a new one.
    private func idempotent(key: String, request: SandboxRequest, path: String, params: JSONValue) -> HandlerResult {
        let fingerprint = request.method + " " + request.path + " " + JSONWriter.string(params)
        if let stored = store.read({ $0.stripe.idempotency[key] }) {
            guard stored.fingerprint == fingerprint else { return HandlerResult(StripeErrors.idempotencyMismatch(key)) }
            var replay = stored.response
            replay.headers.set("Idempotent-Replayed", "true")
            return HandlerResult(replay)
        }
        var result = route(request, path: path, params: params)
        result.response.headers.set("Idempotency-Key", key)
        // Stripe stores the answer unless the request failed validation before running (a 400 or a 404 may be retried).
        if result.response.status < 400 || result.response.status >= 500 {
            let response = result.response
            _ = try? store.withState { (state) throws(SandboxError) in
                state.stripe.idempotency[key] = STIdempotentAnswer(fingerprint: fingerprint, response: response)
            }
        }
        return result
    }

    private func route(_ request: SandboxRequest, path: String, params: JSONValue) -> HandlerResult {
        let r = Route(method: request.method, path: path)
        var result: HandlerResult
        if r.match("GET", "products") != nil {
            result = HandlerResult(listProducts(request))
        } else if let c = r.match("GET", "products/:id") {
            result = HandlerResult(catalogItem(resources.catalog.product(c[0]).map(resources.product), kind: "product", id: c[0]))
        } else if r.match("GET", "prices") != nil {
            result = HandlerResult(listPrices(request))
        } else if let c = r.match("GET", "prices/:id") {
            result = HandlerResult(catalogItem(resources.catalog.price(c[0]).map(resources.price), kind: "price", id: c[0]))
        } else if r.match("GET", "promotion_codes") != nil {
            result = HandlerResult(listPromotionCodes(request))
        } else if r.match("POST", "checkout/sessions") != nil {
            result = HandlerResult(createSession(params))
        } else if let c = r.match("GET", "checkout/sessions/:id") {
            result = HandlerResult(read(c[0], kind: "checkout.session") { state in state.sessions[c[0]].map { resources.session($0, state: state) } })
        } else if r.match("GET", "customers") != nil {
            result = HandlerResult(listCustomers(request))
        } else if r.match("GET", "subscriptions") != nil {
            result = HandlerResult(listSubscriptions(request))
        } else if let c = r.match("GET", "subscriptions/:id") {
            result = HandlerResult(read(c[0], kind: "subscription") { state in state.subscriptions[c[0]].map(resources.subscription) })
        } else if let c = r.match("POST", "subscriptions/:id") {
            result = updateSubscription(c[0], params)
        } else if r.match("POST", "subscription_schedules") != nil {
            result = HandlerResult(createSchedule(params))
        } else if let c = r.match("POST", "subscription_schedules/:id/release") {
            result = HandlerResult(releaseSchedule(c[0]))
        } else if let c = r.match("POST", "subscription_schedules/:id") {
            result = HandlerResult(updateSchedule(c[0], params))
        } else if let c = r.match("GET", "subscription_schedules/:id") {
            result = HandlerResult(read(c[0], kind: "subscription_schedule") { state in state.schedules[c[0]].map(resources.schedule) })
        } else if let c = r.match("DELETE", "subscriptions/:id") {
            result = change { state, lifecycle throws(SandboxError) in
                try lifecycle.apply(.expire, subscriptionID: c[0], state: &state)
            } answer: { state in
                state.subscriptions[c[0]].map(resources.subscription)
            }
        } else if r.match("POST", "invoices/create_preview") != nil {
            result = HandlerResult(createInvoicePreview(params))
        } else if let c = r.match("GET", "invoices/:id") {
            // `payments` is includable only: present when `expand[]=payments` asks for it.
            let payments = request.query.contains { $0.name == "expand[]" && $0.value == "payments" }
            result = HandlerResult(
                read(c[0], kind: "invoice") { state in
                    state.invoices[c[0]].map { resources.invoice($0, state: state, expandingPayments: payments) }
                })
        } else if let c = r.match("GET", "payment_intents/:id") {
            result = HandlerResult(read(c[0], kind: "payment_intent") { state in state.payments[c[0]].map(resources.paymentIntent) })
        } else if let c = r.match("GET", "charges/:id") {
            result = HandlerResult(read(c[0], kind: "charge") { state in state.payment(charge: c[0]).map(resources.charge) })
        } else if r.match("POST", "refunds") != nil {
            result = createRefund(params)
        } else if r.match("POST", "billing_portal/sessions") != nil {
            result = HandlerResult(createPortalSession(params))
        } else {
            result = HandlerResult(
                StripeErrors.response(
                    404, type: "invalid_request_error",
                    message: "Unrecognized request URL (\(request.method): /v1\(r.parts.isEmpty ? "" : "/" + r.parts.joined(separator: "/"))).")
            )
        }
        let requestID = "req_sbx" + Formatting.randomCode("", length: 14)
        result.response.headers.set("Request-Id", requestID)
        result.response.headers.set("Stripe-Version", StripeResources.apiVersion)
        return result
    }

    // MARK: - Reads

    private func catalogItem(_ value: JSONValue?, kind: String, id: String) -> SandboxResponse {
        value.map { .json(200, $0) } ?? StripeErrors.missing(kind, id)
    }

    private func read(_ id: String, kind: String, _ body: (StripeState) -> JSONValue?) -> SandboxResponse {
        store.read { body($0.stripe) }.map { .json(200, $0) } ?? StripeErrors.missing(kind, id)
    }

    /// Cursor pagination: `limit` (1...100, default 10), `starting_after`/`ending_before` an id of the list.
    func page(_ request: SandboxRequest, ids: [String], url: String, render: (String) -> JSONValue) -> SandboxResponse {
        var limit = 10
        if let text = request.queryValue("limit") {
            guard let value = Int(text), (1...100).contains(value) else {
                return StripeErrors.invalid("Invalid limit: must be between 1 and 100", param: "limit")
            }
            limit = value
        }
        var window = ids[...]
        if let after = request.queryValue("starting_after") {
            guard let index = ids.firstIndex(of: after) else { return StripeErrors.missing("object", after, param: "starting_after") }
            window = ids[(index + 1)...]
        } else if let before = request.queryValue("ending_before") {
            guard let index = ids.firstIndex(of: before) else { return StripeErrors.missing("object", before, param: "ending_before") }
            window = ids[max(0, index - limit)..<index]
            return .json(200, StripeResources.list(window.map(render), hasMore: index - limit > 0, url: url))
        }
        let shown = window.prefix(limit)
        return .json(200, StripeResources.list(shown.map(render), hasMore: window.count > shown.count, url: url))
    }

    private func listProducts(_ request: SandboxRequest) -> SandboxResponse {
        var products = resources.catalog.products
        if let active = request.queryValue("active") { products = products.filter { String($0.active) == active } }
        let byID = Dictionary(uniqueKeysWithValues: products.map { ($0.id, $0) })
        return page(request, ids: products.map(\.id), url: "/v1/products") { resources.product(byID[$0]!) }
    }

    private func listPrices(_ request: SandboxRequest) -> SandboxResponse {
        var prices = resources.catalog.prices
        if let active = request.queryValue("active") { prices = prices.filter { String($0.active) == active } }
        if let product = request.queryValue("product") { prices = prices.filter { $0.productID == product } }
        if let type = request.queryValue("type") { prices = prices.filter { ($0.isRecurring ? "recurring" : "one_time") == type } }
        let byID = Dictionary(uniqueKeysWithValues: prices.map { ($0.id, $0) })
        return page(request, ids: prices.map(\.id), url: "/v1/prices") { resources.price(byID[$0]!) }
    }

    /// Newest first; `email` matches exactly (Stripe's filter is case-sensitive).
    private func listCustomers(_ request: SandboxRequest) -> SandboxResponse {
        let all = store.read { $0.stripe.customers }
        var customers = all.values.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }
        if let email = request.queryValue("email") { customers = customers.filter { $0.email == email } }
        return page(request, ids: customers.map(\.id), url: "/v1/customers") { resources.customer(all[$0]!) }
    }

    /// Newest first (Stripe's list order); `status` (`all` includes `canceled`), `customer`, `created[gte]`/`created[lte]` (Unix seconds).
    private func listSubscriptions(_ request: SandboxRequest) -> SandboxResponse {
        let all = store.read { $0.stripe.subscriptions }
        var subscriptions = all.values.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }
        switch request.queryValue("status") {
        case nil: subscriptions = subscriptions.filter { $0.status != "canceled" && $0.status != "incomplete_expired" }
        case "all"?: break
        case let status?: subscriptions = subscriptions.filter { $0.status == status }
        }
        if let customer = request.queryValue("customer") { subscriptions = subscriptions.filter { $0.customerID == customer } }
        if let gte = request.queryValue("created[gte]").flatMap(TimeInterval.init) {
            subscriptions = subscriptions.filter { $0.createdAt.timeIntervalSince1970 >= gte }
        }
        if let lte = request.queryValue("created[lte]").flatMap(TimeInterval.init) {
            subscriptions = subscriptions.filter { $0.createdAt.timeIntervalSince1970 <= lte }
        }
        return page(request, ids: subscriptions.map(\.id), url: "/v1/subscriptions") { resources.subscription(all[$0]!) }
    }
}
