import Foundation

/// The Stripe controls under `/_sandbox/stripe/…` (JSON bodies, no auth):
///
/// - `POST subscriptions/{id}/{action}`: `renew`, `payment_failed`, `recover`, `unpaid`, `cancel`,
///   `resume`, `pause`, `unpause`, `expire`, `refund` (`{"amount"?}`); see ``StripeLifecycle/Action``.
/// - `POST payments/{payment intent or charge id}/refund` `{"amount"?}`: `charge.refunded`.
/// - `POST payments/{payment intent or charge id}/dispute` `{"action":"create"|"close","status":"won"|"lost"}`:
///   `charge.dispute.created`, `charge.dispute.closed`.
///
/// Paying a session without a browser is `POST /_sandbox/checkouts/stripe/{session id}/pay`
/// `{"email"?, "trial_days"?}` (see ``pay(sessionID:body:)``).
struct StripeControlRoutes {
    let context: SandboxContext
    let store: SandboxStore

    var resources: StripeResources { StripeResources(context: context) }

    func handle(_ request: SandboxRequest, path: String, body: JSONValue) -> HandlerResult? {
        let r = Route(method: request.method, path: path)
        if let c = r.match("POST", "stripe/subscriptions/:id/:action") {
            guard let action = StripeLifecycle.Action(rawValue: c[1]) else { return json(404, ["error": .string("unknown action \(c[1])")]) }
            return change(extra: { state in ["subscription": state.subscriptions[c[0]].map(resources.subscription) ?? .null] }) {
                state, lifecycle throws(SandboxError) in
                try lifecycle.apply(
                    action, subscriptionID: c[0], refundAmount: action == .refund ? try SandboxControlRoutes.amount(body) : nil, state: &state)
            }
        }
        if let c = r.match("POST", "stripe/payments/:id/refund") {
            return change { state, lifecycle throws(SandboxError) in
                try lifecycle.refund(paymentIntentID: c[0], amount: try SandboxControlRoutes.amount(body), state: &state)
            }
        }
        if let c = r.match("POST", "stripe/payments/:id/dispute") {
            return change { state, lifecycle throws(SandboxError) in
                try lifecycle.dispute(
                    paymentIntentID: c[0], action: body["action"]?.stringValue ?? "", outcome: body["status"]?.stringValue, state: &state)
            }
        }
        return nil
    }

    /// Pays a Checkout Session (`trial_days` 1...730 overrides the session's trial; subscription mode only).
    func pay(sessionID: String, body: JSONValue) -> HandlerResult {
        var trialDays: Int?
        if let value = body["trial_days"], !value.isNull {
            guard let days = value.intValue, (1...730).contains(days) else {
                return json(422, ["error": "trial_days must be a whole number of days, 1...730"])
            }
            trialDays = days
        }
        return change(extra: { state in
            guard let s = state.sessions[sessionID] else { return [:] }
            return [
                "session_id": .string(s.id), "subscription_id": JSONValue(s.subscriptionID), "payment_intent_id": JSONValue(s.paymentIntentID),
                "redirect_url": .string(s.successURL.replacingOccurrences(of: "{CHECKOUT_SESSION_ID}", with: s.id)),
            ]
        }) { state, lifecycle throws(SandboxError) in
            if trialDays != nil, state.sessions[sessionID]?.mode == "payment" { throw .unsupported("trial_days is for subscription sessions only.") }
            return try lifecycle.purchase(sessionID: sessionID, email: body["email"]?.stringValue, trialDays: trialDays, state: &state).events
        }
    }

    private func json(_ status: Int, _ value: JSONValue) -> HandlerResult { HandlerResult(.json(status, value)) }

    /// Runs a change; answers `{"events":[…]}` plus `extra`'s fields read afterwards.
    private func change(
        extra: (StripeState) -> [String: JSONValue] = { _ in [:] },
        _ body: (inout StripeState, StripeLifecycle) throws(SandboxError) -> [OutgoingWebhook]
    ) -> HandlerResult {
        let lifecycle = StripeLifecycle(resources: resources, now: context.clock.now())
        do throws(SandboxError) {
            let (events, fields) = try store.withState { (state) throws(SandboxError) -> ([OutgoingWebhook], [JSONField]) in
                let events = try body(&state.stripe, lifecycle)
                let fields = extra(state.stripe).sorted { $0.key < $1.key }.map { JSONField(key: $0.key, value: $0.value) }
                return (events, fields)
            }
            return HandlerResult(
                .json(200, .object(fields + [JSONField(key: "events", value: .array(events.map { .string($0.eventName) }))])), events: events)
        } catch {
            let status =
                switch error.kind {
                case .notFound: 404
                case .conflict: 409
                case .invalid, .unsupported: 422
                }
            return json(status, ["error": .string(error.message)])
        }
    }
}

extension StripeControlRoutes {
    /// The hosted Checkout page of an open session (`GET /checkout/stripe/{id}`).
    func page(sessionID id: String) -> SandboxResponse {
        guard let session = store.read({ $0.stripe.sessions[id] }), let price = resources.catalog.price(session.priceID) else {
            return .html(404, CheckoutPage.message("Not found", "This checkout does not exist."))
        }
        if session.status == "complete" { return .html(200, CheckoutPage.message("Already paid", "This checkout was paid. Thank you!")) }
        if session.expiresAt <= context.clock.now() {
            return .html(410, CheckoutPage.message("Checkout expired", "This checkout session has expired."))
        }
        let every = price.interval.map { " / \(price.intervalCount > 1 ? "\(price.intervalCount) " : "")\($0)" } ?? ""
        let trial = session.trialDays.map { "\($0)-day free trial, then " } ?? ""
        return .html(
            200,
            CheckoutPage.checkout(
                .init(
                    provider: .stripe, id: id, title: resources.catalog.product(price.productID)?.name ?? "Payment",
                    detail: trial + (price.isRecurring ? "Billed every \(price.interval ?? "month")" : "One-time payment"),
                    price: (price.currency == "usd"
                        ? Formatting.usd(price.unitAmount * session.quantity) : "\(price.currency.uppercased()) \(price.unitAmount)")
                        + every, email: session.customerEmail ?? "")))
    }
}
