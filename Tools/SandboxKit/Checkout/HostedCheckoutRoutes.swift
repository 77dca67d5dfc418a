import Foundation

/// The browser-facing pages: `GET /checkout/{provider}/{id}`, `POST …/pay`,
/// Lemon Squeezy buy links, and a minimal subscription management page.
struct HostedCheckoutRoutes {
    let context: SandboxContext
    let store: SandboxStore

    var ls: LemonSqueezyResources { LemonSqueezyResources(context: context) }
    var ps: PaystackResources { PaystackResources(context: context) }
    var stripeControls: StripeControlRoutes { StripeControlRoutes(context: context, store: store) }

    func handle(_ request: SandboxRequest) -> HandlerResult {
        let r = Route(method: request.method, path: request.path)
        if let c = r.match("GET", "checkout/lemonsqueezy/buy/:variant") { return HandlerResult(buyLink(c[0])) }
        if let c = r.match("GET", "checkout/:provider/:id") { return HandlerResult(page(c[0], c[1])) }
        if let c = r.match("POST", "checkout/:provider/:id/pay") {
            let form = FormDecoding.decode(String(decoding: request.body.prefix(16 * 1024), as: UTF8.self))
            let email = form.first { $0.name == "email" }?.value
            return pay(c[0], c[1], email: email, name: form.first { $0.name == "name" }?.value)
        }
        if let c = r.match("GET", "manage/:provider/:id") { return HandlerResult(manage(c[0], c[1])) }
        if let c = r.match("POST", "manage/:provider/:id/cancel") { return cancel(c[0], c[1]) }
        return HandlerResult(.html(404, CheckoutPage.message("Not found", "There is no page at \(request.path).")))
    }

    /// A shareable buy link: creates a fresh checkout for the variant and sends the browser to it.
    private func buyLink(_ variantText: String) -> SandboxResponse {
        guard let variantID = Int(variantText), let (product, _) = ls.catalog.variant(id: variantID), product.status == "published" else {
            return .html(404, CheckoutPage.message("Not found", "This product is not for sale."))
        }
        let now = context.clock.now()
        let id: String? = try? store.withState { (state) throws(SandboxError) -> String in
            let checkout = LSCheckout(
                id: Formatting.uuid(1, state.next(.lsCheckout)), storeID: ls.catalog.store.id, variantID: variantID, customPrice: nil,
                productOptions: ["redirect_url": ""], checkoutOptions: [:], email: "", name: "", custom: nil, expiresAt: nil,
                testMode: true, createdAt: now, paidOrderID: nil)
            state.lsCheckouts[checkout.id] = checkout
            return checkout.id
        }
        return .seeOther("/checkout/lemonsqueezy/\(id ?? "")")
    }

    private func page(_ provider: String, _ id: String) -> SandboxResponse {
        switch SandboxProvider(rawValue: provider) {
        case .lemonSqueezy:
            guard let checkout = store.read({ $0.lsCheckouts[id] }), let (product, variant) = ls.catalog.variant(id: checkout.variantID) else {
                break
            }
            if let expires = checkout.expiresAt, expires <= context.clock.now() {
                return .html(410, CheckoutPage.message("Checkout expired", "This checkout link has expired."))
            }
            if checkout.paidOrderID != nil { return .html(200, CheckoutPage.message("Already paid", "This checkout was paid. Thank you!")) }
            let every = variant.isSubscription ? " / \(variant.intervalCount.map { $0 > 1 ? "\($0) " : "" } ?? "")\(variant.interval ?? "month")" : ""
            return .html(
                200,
                CheckoutPage.checkout(
                    .init(
                        provider: .lemonSqueezy, id: id, title: product.name, detail: variant.name == "Default" ? "" : variant.name,
                        price: Formatting.usd(checkout.customPrice ?? variant.price) + every, email: checkout.email)))
        case .paystack:
            guard let t = store.read({ state in state.psAccessCodes[id].flatMap { state.psTransactions[$0] } }) else { break }
            if t.status != "abandoned" { return .html(200, CheckoutPage.message("Already paid", "This payment was completed. Thank you!")) }
            let plan = t.planID.flatMap { id in ps.catalog.plans.first { $0.id == id } }
            return .html(
                200,
                CheckoutPage.checkout(
                    .init(
                        provider: .paystack, id: id, title: plan?.name ?? "Payment",
                        detail: plan.map { "Billed \($0.interval)" } ?? "One-time payment",
                        price: t.currency == "NGN" ? Formatting.naira(t.amount) : "\(t.currency) \(Double(t.amount) / 100)", email: t.email)))
        case .stripe:
            return stripeControls.page(sessionID: id)
        case nil:
            break
        }
        return .html(404, CheckoutPage.message("Not found", "This checkout does not exist."))
    }

    /// Pays and answers with a 303 to the redirect/callback URL, or a "paid" page.
    func pay(_ provider: String, _ id: String, email: String?, name: String?) -> HandlerResult {
        let now = context.clock.now()
        do throws(SandboxError) {
            let (redirect, events): (String?, [OutgoingWebhook]) = try store.withState { (state) throws(SandboxError) in
                switch SandboxProvider(rawValue: provider) {
                case .lemonSqueezy:
                    let p = try LemonSqueezyLifecycle(resources: ls, now: now).purchase(checkoutID: id, email: email, name: name, state: &state)
                    return (p.redirectURL, p.events)
                case .paystack:
                    let p = try PaystackLifecycle(resources: ps, now: now).purchase(accessCodeOrReference: id, email: email, state: &state)
                    return (p.redirectURL, p.events)
                case .stripe:
                    let p = try StripeLifecycle(resources: StripeResources(context: context), now: now).purchase(
                        sessionID: id, email: email, trialDays: nil, state: &state.stripe)
                    return (p.redirectURL, p.events)
                case nil:
                    throw .notFound("Unknown provider \(provider).")
                }
            }
            let response: SandboxResponse =
                redirect.map { .seeOther($0) } ?? .html(200, CheckoutPage.message("Payment complete", "Thank you! You can close this page."))
            return HandlerResult(response, events: events)
        } catch {
            let status = error.kind == .notFound ? 404 : (error.kind == .conflict ? 409 : 422)
            return HandlerResult(.html(status, CheckoutPage.message("Payment not possible", error.message)))
        }
    }

    private func manage(_ provider: String, _ id: String) -> SandboxResponse {
        let status: String? = store.read { state in
            switch SandboxProvider(rawValue: provider) {
            case .lemonSqueezy: Int(id).flatMap { state.lsSubscriptions[$0]?.status }
            case .paystack: state.psSubscriptions.values.first { $0.code == id }?.status
            case .stripe: state.stripe.subscriptions[id].map { $0.cancelAtPeriodEnd ? "\($0.status), cancels at period end" : $0.status }
            case nil: nil
            }
        }
        guard let status else { return .html(404, CheckoutPage.message("Not found", "No such subscription.")) }
        return .html(
            200,
            CheckoutPage.layout(
                "Manage subscription",
                """
                <h1>Your subscription</h1><p>Status: <strong>\(Formatting.html(status))</strong></p>
                <form method="post" action="/manage/\(provider)/\(Formatting.html(id))/cancel"><button type="submit">Cancel subscription</button></form>
                """))
    }

    private func cancel(_ provider: String, _ id: String) -> HandlerResult {
        let now = context.clock.now()
        do throws(SandboxError) {
            let events = try store.withState { (state) throws(SandboxError) -> [OutgoingWebhook] in
                switch SandboxProvider(rawValue: provider) {
                case .lemonSqueezy:
                    guard let sid = Int(id) else { throw .notFound("No subscription \(id).") }
                    return try LemonSqueezyLifecycle(resources: ls, now: now).apply(.cancel, subscriptionID: sid, state: &state)
                case .paystack:
                    return try PaystackLifecycle(resources: ps, now: now).apply(.cancel, subscriptionCode: id, state: &state)
                case .stripe:
                    return try StripeLifecycle(resources: StripeResources(context: context), now: now).apply(
                        .cancel, subscriptionID: id, state: &state.stripe)
                case nil:
                    throw .notFound("Unknown provider \(provider).")
                }
            }
            return HandlerResult(
                .html(200, CheckoutPage.message("Subscription cancelled", "It stays active until the end of the paid period.")), events: events)
        } catch {
            return HandlerResult(.html(error.kind == .notFound ? 404 : 422, CheckoutPage.message("Could not cancel", error.message)))
        }
    }
}
