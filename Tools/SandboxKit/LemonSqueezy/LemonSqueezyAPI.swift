import Foundation

/// The emulated Lemon Squeezy REST API under `/lemonsqueezy/v1/…`.
struct LemonSqueezyAPI {
    let context: SandboxContext
    let store: SandboxStore
    let rateLimiter: RateLimiter?

    var resources: LemonSqueezyResources { LemonSqueezyResources(context: context) }
    var lifecycle: LemonSqueezyLifecycle { LemonSqueezyLifecycle(resources: resources, now: context.clock.now()) }

    /// `path` is the part after `/lemonsqueezy/v1`.
    func handle(_ request: SandboxRequest, path: String) -> HandlerResult {
        var rateHeaders: [(String, String)] = []
        if let limiter = rateLimiter {
            switch limiter.check(key: "lemonsqueezy", now: context.clock.now()) {
            case .limited(let retryAfter):
                return HandlerResult(LemonSqueezyErrors.rateLimited(retryAfter: retryAfter, limit: limiter.settings.limit))
            case .allowed(let remaining):
                rateHeaders = [("X-Ratelimit-Limit", String(limiter.settings.limit)), ("X-Ratelimit-Remaining", String(remaining))]
            }
        }
        guard let auth = request.headers["Authorization"], auth == "Bearer \(context.configuration.lemonSqueezy.apiKey)" else {
            return HandlerResult(LemonSqueezyErrors.unauthorized())
        }
        var result = route(request, Route(method: request.method, path: path))
        for (name, value) in rateHeaders { result.response.headers.add(name, value) }
        return result
    }

    private func route(_ request: SandboxRequest, _ r: Route) -> HandlerResult {
        do throws(SandboxError) {
            if r.match("GET", "products") != nil { return HandlerResult(listProducts(request)) }
            if let c = r.match("GET", "products/:id") { return HandlerResult(try getProduct(c[0], request)) }
            if r.match("GET", "variants") != nil { return HandlerResult(listVariants(request)) }
            if let c = r.match("GET", "variants/:id") { return HandlerResult(try getVariant(c[0])) }
            if r.match("POST", "checkouts") != nil { return HandlerResult(try createCheckout(request)) }
            if let c = r.match("GET", "checkouts/:id") { return HandlerResult(try getCheckout(c[0])) }
            if r.match("GET", "subscriptions") != nil { return HandlerResult(listSubscriptions(request)) }
            if let c = r.match("GET", "subscriptions/:id") { return HandlerResult(try getSubscription(c[0])) }
            if let c = r.match("PATCH", "subscriptions/:id") { return try updateSubscription(c[0], request) }
            if let c = r.match("DELETE", "subscriptions/:id") { return try cancelSubscription(c[0]) }
            if r.match("GET", "orders") != nil { return HandlerResult(listOrders(request)) }
            if let c = r.match("GET", "orders/:id") { return HandlerResult(try getOrder(c[0])) }
            if let c = r.match("GET", "subscription-invoices/:id") { return HandlerResult(try getInvoice(c[0])) }
            if let c = r.match("POST", "orders/:id/refund") { return try refundOrder(c[0], request) }
            if let c = r.match("POST", "subscription-invoices/:id/refund") { return try refundInvoice(c[0], request) }
        } catch {
            return HandlerResult(LemonSqueezyErrors.from(error))
        }
        let known = [
            "products", "products/:id", "variants", "variants/:id", "checkouts", "checkouts/:id", "subscriptions", "subscriptions/:id", "orders",
            "orders/:id", "subscription-invoices/:id", "orders/:id/refund", "subscription-invoices/:id/refund",
        ]
        if known.contains(where: r.matchesPath) {
            return HandlerResult(LemonSqueezyErrors.response(405, "The \(r.method) method is not supported for this route."))
        }
        return HandlerResult(LemonSqueezyErrors.notFound())
    }

    // MARK: - Shared helpers

    func ok(_ document: JSONValue, status: Int = 200) -> SandboxResponse {
        .json(status, document, contentType: LemonSqueezyErrors.contentType, dialect: .php)
    }

    func intID(_ text: String, _ kind: String) throws(SandboxError) -> Int {
        guard let id = Int(text), id > 0 else { throw .notFound("No \(kind) \(text).") }
        return id
    }

    /// A list document with `meta.page` and `links` (`next`/`prev` only when they exist).
    func listDocument(
        _ request: SandboxRequest, path: String, sort: String, items: [JSONValue], included: [JSONValue]? = nil, window: PageWindow
    ) -> JSONValue {
        let carried = request.query.filter { $0.name.hasPrefix("filter[") || $0.name == "include" }.map { ($0.name, $0.value) }
        func link(_ page: Int) -> JSONValue {
            .string(
                context.lsAPIBase + path + "?"
                    + FormDecoding.encode(carried + [("page[number]", String(page)), ("page[size]", String(window.size)), ("sort", sort)]))
        }
        var links: [JSONField] = [JSONField(key: "first", value: link(1)), JSONField(key: "last", value: link(window.lastPage))]
        if window.number < window.lastPage { links.append(JSONField(key: "next", value: link(window.number + 1))) }
        if window.number > 1 { links.append(JSONField(key: "prev", value: link(min(window.number - 1, window.lastPage)))) }
        let range = window.range
        var doc: JSONValue = [
            "meta": [
                "page": [
                    "currentPage": .int(window.number),
                    "from": range.isEmpty ? .null : .int(range.lowerBound + 1),
                    "lastPage": .int(window.lastPage),
                    "perPage": .int(window.size),
                    "to": range.isEmpty ? .null : .int(range.upperBound),
                    "total": .int(window.total),
                ]
            ],
            "jsonapi": ["version": "1.0"],
            "links": .object(links),
            "data": .array(items),
        ]
        if let included { doc = doc.setting("included", .array(included)) }
        return doc
    }

    func window(_ request: SandboxRequest, total: Int) -> PageWindow {
        PageWindow(
            number: request.queryValue("page[number]").flatMap { Int($0) }, size: request.queryValue("page[size]").flatMap { Int($0) },
            total: total, defaultSize: 10, maxSize: 100)
    }

    func includes(_ request: SandboxRequest) -> Set<String> {
        Set((request.queryValue("include") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
    }
}
