import Foundation

/// The emulated Paystack API under `/paystack/…`.
struct PaystackAPI {
    let context: SandboxContext
    let store: SandboxStore
    let rateLimiter: RateLimiter?

    var resources: PaystackResources { PaystackResources(context: context) }
    var lifecycle: PaystackLifecycle { PaystackLifecycle(resources: resources, now: context.clock.now()) }

    /// `path` is the part after `/paystack`.
    func handle(_ request: SandboxRequest, path: String) -> HandlerResult {
        if let limiter = rateLimiter, case .limited(let retryAfter) = limiter.check(key: "paystack", now: context.clock.now()) {
            return HandlerResult(PaystackErrors.rateLimited(retryAfter: retryAfter))
        }
        guard let auth = request.headers["Authorization"], auth == "Bearer \(context.configuration.paystack.secretKey)" else {
            return HandlerResult(PaystackErrors.invalidKey())
        }
        let r = Route(method: request.method, path: path)
        do throws(SandboxError) {
            if r.match("GET", "plan") != nil { return HandlerResult(listPlans(request)) }
            if let c = r.match("GET", "plan/:id") { return HandlerResult(try getPlan(c[0])) }
            if r.match("POST", "transaction/initialize") != nil { return HandlerResult(initialize(request)) }
            if let c = r.match("GET", "transaction/verify/:reference") { return HandlerResult(verify(c[0])) }
            if r.match("GET", "transaction") != nil { return HandlerResult(listTransactions(request)) }
            if r.match("GET", "subscription") != nil { return HandlerResult(listSubscriptions(request)) }
            if r.match("POST", "subscription") != nil { return try createSubscription(request) }
            if r.match("POST", "subscription/disable") != nil { return try toggle(request, enable: false) }
            if r.match("POST", "subscription/enable") != nil { return try toggle(request, enable: true) }
            if let c = r.match("GET", "subscription/:code/manage/link") { return HandlerResult(try manageLink(c[0])) }
            if let c = r.match("GET", "subscription/:code") { return HandlerResult(try getSubscription(c[0])) }
            if let c = r.match("GET", "customer/:key") { return HandlerResult(try getCustomer(c[0])) }
            if r.match("POST", "refund") != nil { return try createRefund(request) }
        } catch {
            return HandlerResult(PaystackErrors.from(error))
        }
        return HandlerResult(PaystackErrors.response(404, "Route not found: \(request.method) /\(r.parts.joined(separator: "/"))"))
    }

    func window(_ request: SandboxRequest, total: Int) -> PageWindow {
        PageWindow(
            number: request.queryValue("page").flatMap { Int($0) }, size: request.queryValue("perPage").flatMap { Int($0) },
            total: total, defaultSize: 50, maxSize: 100)
    }

    /// A JSON body (object) of at most 64 KiB, or nil.
    func jsonBody(_ request: SandboxRequest) -> JSONValue? {
        guard request.body.count <= 64 * 1024, let body = JSONValue.parse(request.body), body.objectValue != nil else { return nil }
        return body
    }
}
