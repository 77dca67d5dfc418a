import Foundation

/// JSON control endpoints under `/_sandbox/…` (no auth: a local test tool).
///
/// - `POST /_sandbox/checkouts/{provider}/{id}/pay` `{"email"?, "name"?, "trial_days"?}`: pay without a
///   browser. `trial_days` (1...730, Lemon Squeezy subscription variants only) starts a free trial:
///   a free order, the subscription `on_trial` until now + N days (`trial_ends_at`, `renews_at`),
///   only `order_created` and `subscription_created`; `renew` then ends the trial with the first
///   charge (billing reason `initial`). Paystack documents no trials: `trial_days` there answers 422.
/// - `POST /_sandbox/{provider}/subscriptions/{id}/{action}`: `renew`, `payment_failed`, `recover`,
///   `cancel`, `resume`, `pause` (`{"mode","resumes_at"}`), `unpause`, `expire`, `refund`
///   (`{"amount"?}`, see refunds: the latest paid invoice or successful charge), and for
///   Lemon Squeezy `unpaid` (a past_due one's last retry failed). Paystack `expire` is the final
///   `subscription.disable` and takes `{"status": "cancelled"|"complete"}` (default: `cancelled`
///   when non-renewing, else `complete`). Paystack `{id}` is the subscription code or id; a
///   concept the provider lacks answers 422.
/// - Refunds take `{"amount"?: <minor units>}`: absent refunds all that is left, refunds accumulate,
///   more than is left answers 422. `POST /_sandbox/lemonsqueezy/orders/{id}/refund` sends
///   `order_refunded` (status `partial_refund`, then `refunded`; `refunded_amount` the running total)
///   and, for an order that paid a subscription's initial invoice, `subscription_payment_refunded`
///   (invoice status `partial_refunded`, then `refunded`).
///   `POST /_sandbox/paystack/transactions/{reference}/refund` sends `refund.pending` then
///   `refund.processed` (`amount` a string of this refund's subunits); the transaction turns
///   `reversed` once fully refunded.
/// - `POST /_sandbox/paystack/transactions/{reference}/dispute`
///   `{"action": "create"|"remind"|"resolve", "resolution": "merchant-accepted"|"declined", "amount"?}`:
///   a chargeback, sending `charge.dispute.create`/`.remind`/`.resolve` (see ``PaystackLifecycle/dispute(reference:action:resolution:amount:state:)``).
///   `resolution` is for `resolve` only; `amount` is the disputed amount on `create` (default: all
///   not refunded) and what goes back to the customer on a `merchant-accepted` resolve.
///   There is no Lemon Squeezy dispute control on purpose: Lemon Squeezy documents no dispute
///   webhook, and a chargeback it loses reaches the store as a refund (`order_refunded` /
///   `subscription_payment_refunded`), which the refund controls produce.
/// - Stripe's controls live in its folder: `POST /_sandbox/stripe/…` (``StripeControlRoutes``), and
///   `POST /_sandbox/checkouts/stripe/{session id}/pay` `{"email"?, "trial_days"?}` pays a Checkout Session.
/// - `GET /_sandbox/deliveries?provider=&event=`, `DELETE /_sandbox/deliveries`, `POST /_sandbox/deliveries/settle`.
/// - `GET /_sandbox/faults`, `POST /_sandbox/faults` `{"duplicate_next","shuffle_next_batch","delay_ms","fail_next_attempts",
///   "drop_subscriptions":["lemonsqueezy:5","paystack:SUB_…"],"drop_checkouts":["lemonsqueezy:<checkout id>","paystack:<access code>"],
///   "api_429_next","api_429_provider","api_retry_after_seconds","api_rate_limit":{"limit","window_seconds"},
///   "api_answer_delay_ms"}`
///   (replaces every fault; see ``DeliveryFaults`` and ``APIFaults``).
/// - `GET /_sandbox/api-requests` (API requests counted per provider and route), `DELETE` to reset.
/// - `POST /_sandbox/{provider}/seed` `{"subscriptions": N, "webhooks": false}`: N paid subscriptions
///   (Lemon Squeezy variant 2 unless `"variant"`; Paystack plan `PLN_sbxpremmonth01` unless `"plan"`),
///   each bought by its own customer, without webhooks unless `"webhooks": true`.
struct SandboxControlRoutes {
    let context: SandboxContext
    let store: SandboxStore
    let dispatcher: WebhookDispatcher
    let checkout: HostedCheckoutRoutes
    let gate: APIGate

    func handle(_ request: SandboxRequest, path: String) async -> HandlerResult {
        let r = Route(method: request.method, path: path)
        let body = request.body.count <= 64 * 1024 ? (JSONValue.parse(request.body) ?? [:]) : [:]
        if let result = checkout.stripeControls.handle(request, path: path, body: body) { return result }
        if let c = r.match("POST", "checkouts/:provider/:id/pay") { return pay(c[0], c[1], body) }
        if let c = r.match("POST", "lemonsqueezy/subscriptions/:id/:action") { return lemonSqueezy(c[0], c[1], body) }
        if let c = r.match("POST", "paystack/subscriptions/:code/:action") { return paystack(c[0], c[1], body) }
        if let c = r.match("POST", "lemonsqueezy/orders/:id/refund") {
            return change { state, now throws(SandboxError) in
                guard let id = Int(c[0]) else { throw .notFound("No order \(c[0]).") }
                return try LemonSqueezyLifecycle(resources: LemonSqueezyResources(context: context), now: now).refundOrder(
                    id, amount: try Self.amount(body), state: &state)
            }
        }
        if let c = r.match("POST", "paystack/transactions/:reference/refund") {
            return change { state, now throws(SandboxError) in
                try PaystackLifecycle(resources: PaystackResources(context: context), now: now).refund(
                    reference: c[0], amount: try Self.amount(body), state: &state)
            }
        }
        if let c = r.match("POST", "paystack/transactions/:reference/dispute") { return dispute(c[0], body) }
        if r.match("GET", "deliveries") != nil {
            let provider = request.queryValue("provider").flatMap(SandboxProvider.init(rawValue:))
            if request.queryValue("provider") != nil, provider == nil {
                return json(400, ["error": "provider must be lemonsqueezy, paystack or stripe"])
            }
            let attempts = await dispatcher.log(provider: provider, event: request.queryValue("event"))
            return json(200, ["deliveries": .array(attempts.map { $0.json(timestamp: Formatting.lemonSqueezy) })])
        }
        if r.match("DELETE", "deliveries") != nil {
            await dispatcher.clearLog()
            return json(200, ["cleared": true])
        }
        if r.match("POST", "deliveries/settle") != nil {
            await dispatcher.settle()
            return json(200, ["settled": true])
        }
        if r.match("GET", "faults") != nil { return json(200, .object(await dispatcher.faults.jsonFields + gate.faults.json)) }
        if r.match("POST", "faults") != nil {
            var faults = DeliveryFaults()
            faults.duplicateNext = max(0, min(1000, body["duplicate_next"]?.intValue ?? 0))
            faults.shuffleNextBatch = body["shuffle_next_batch"]?.boolValue ?? false
            faults.delayMilliseconds = max(0, min(60_000, body["delay_ms"]?.intValue ?? 0))
            faults.failNextAttempts = max(0, min(1000, body["fail_next_attempts"]?.intValue ?? 0))
            guard let subscriptions = Self.names(body["drop_subscriptions"]), let checkouts = Self.names(body["drop_checkouts"]) else {
                return json(400, ["error": "drop_subscriptions and drop_checkouts are arrays of \"<provider>:<id>\" strings"])
            }
            faults.dropSubscriptions = subscriptions
            faults.dropCheckouts = checkouts
            var api = APIFaults()
            api.rateLimitNext = max(0, min(100_000, body["api_429_next"]?.intValue ?? 0))
            if let name = body["api_429_provider"]?.stringValue {
                guard let provider = SandboxProvider(rawValue: name) else {
                    return json(400, ["error": "api_429_provider must be lemonsqueezy, paystack or stripe"])
                }
                api.rateLimitProvider = provider
            }
            api.retryAfterSeconds = max(0, min(3600, body["api_retry_after_seconds"]?.intValue ?? 1))
            if let limit = body["api_rate_limit"], !limit.isNull {
                guard let count = limit["limit"]?.intValue, count > 0 else { return json(400, ["error": "api_rate_limit needs a positive limit"]) }
                api.rateLimit = RateLimitSettings(limit: count, windowSeconds: limit["window_seconds"]?.intValue ?? 60)
            }
            api.answerDelayMilliseconds = max(0, min(120_000, body["api_answer_delay_ms"]?.intValue ?? 0))
            await dispatcher.setFaults(faults)
            gate.setFaults(api)
            return json(200, .object(faults.jsonFields + api.json))
        }
        if r.match("GET", "api-requests") != nil { return json(200, gate.statistics) }
        if r.match("DELETE", "api-requests") != nil {
            gate.resetStatistics()
            return json(200, ["cleared": true])
        }
        if let c = r.match("POST", ":provider/seed") { return seed(c[0], body) }
        return json(404, ["error": .string("no control endpoint \(request.method) \(request.path)")])
    }

    private func json(_ status: Int, _ value: JSONValue) -> HandlerResult { HandlerResult(.json(status, value)) }

    /// The optional `"amount"` of a refund (minor units, a positive integer); nil when absent or null.
    static func amount(_ body: JSONValue) throws(SandboxError) -> Int? {
        guard let value = body["amount"], !value.isNull else { return nil }
        guard let amount = value.intValue, amount > 0 else { throw .invalid("amount must be a positive integer of minor units") }
        return amount
    }

    /// `["lemonsqueezy:5", …]` → a set; nil when it is neither absent nor an array of `provider:id` strings.
    static func names(_ value: JSONValue?) -> Set<String>? {
        guard let value, !value.isNull else { return [] }
        guard let items = value.arrayValue else { return nil }
        var names: Set<String> = []
        for item in items {
            guard let text = item.stringValue, let colon = text.firstIndex(of: ":"),
                SandboxProvider(rawValue: String(text[..<colon])) != nil, text.index(after: colon) < text.endIndex
            else { return nil }
            names.insert(text)
        }
        return names
    }

    /// Many paid subscriptions at once (load and reconciliation tests), through
    /// the same purchase code as a paid checkout.
    private func seed(_ providerName: String, _ body: JSONValue) -> HandlerResult {
        guard let provider = SandboxProvider(rawValue: providerName) else {
            return json(404, ["error": .string("Unknown provider \(providerName).")])
        }
        guard let count = body["subscriptions"]?.intValue, (1...100_000).contains(count) else {
            return json(422, ["error": "subscriptions must be 1...100000"])
        }
        let withWebhooks = body["webhooks"]?.boolValue ?? false
        let now = context.clock.now()
        do throws(SandboxError) {
            let (ids, events): ([String], [OutgoingWebhook]) = try store.withState { (state) throws(SandboxError) in
                var ids: [String] = []
                var events: [OutgoingWebhook] = []
                for _ in 0..<count {
                    switch provider {
                    case .lemonSqueezy:
                        let variant = body["variant"]?.intValue ?? 2
                        guard let (_, v) = checkout.ls.catalog.variant(id: variant), v.isSubscription else {
                            throw .invalid("Variant \(variant) is not a subscription.")
                        }
                        let n = state.next(.lsCheckout)
                        let id = Formatting.uuid(1, n)
                        state.lsCheckouts[id] = LSCheckout(
                            id: id, storeID: checkout.ls.catalog.store.id, variantID: variant, customPrice: nil, productOptions: [:],
                            checkoutOptions: [:],
                            email: "seed-\(n)@example.com", name: "Seed \(n)", custom: nil, expiresAt: nil, testMode: true, createdAt: now,
                            paidOrderID: nil)
                        let purchase = try LemonSqueezyLifecycle(resources: checkout.ls, now: now).purchase(
                            checkoutID: id, email: nil, name: nil, state: &state)
                        ids.append(purchase.subscriptionID.map(String.init) ?? "")
                        if withWebhooks { events += purchase.events }
                    case .paystack:
                        let code = body["plan"]?.stringValue ?? "PLN_sbxpremmonth01"
                        guard let plan = checkout.ps.catalog.plan(idOrCode: code) else { throw .notFound("Plan not found") }
                        let n = state.next(.psTransaction)
                        let access = Formatting.code("", state.next(.psAccessCode))
                        let t = PSTransaction(
                            id: n, reference: "sbxseed-\(n)", accessCode: access, amount: plan.amount, currency: plan.currency,
                            email: "seed-\(n)@example.com",
                            planID: plan.id, callbackURL: nil, metadata: "", status: "abandoned", createdAt: now, paidAt: nil, customerID: nil,
                            subscriptionID: nil)
                        state.psTransactions[t.reference] = t
                        state.psAccessCodes[access] = t.reference
                        let purchase = try PaystackLifecycle(resources: checkout.ps, now: now).purchase(
                            accessCodeOrReference: t.reference, email: nil, state: &state)
                        ids.append(purchase.subscriptionCode ?? "")
                        if withWebhooks { events += purchase.events }
                    case .stripe:
                        throw .unsupported("Seeding is not emulated for Stripe; create and pay Checkout Sessions instead.")
                    }
                }
                return (ids, events)
            }
            return HandlerResult(
                .json(
                    200,
                    [
                        "created": .int(ids.count), "first": JSONValue(ids.first), "last": JSONValue(ids.last), "webhooks": .int(events.count),
                    ]), events: events)
        } catch { return errorResult(error) }
    }

    private func errorResult(_ error: SandboxError) -> HandlerResult {
        let status =
            switch error.kind {
            case .notFound: 404;
            case .conflict: 409;
            case .invalid, .unsupported: 422
            }
        return json(status, ["error": .string(error.message)])
    }

    private func summary(_ events: [OutgoingWebhook], extra: [JSONField] = []) -> JSONValue {
        .object(extra + [JSONField(key: "events", value: .array(events.map { .string($0.eventName) }))])
    }

    /// Runs a state change that only produces webhooks.
    private func change(_ body: (inout SandboxState, Date) throws(SandboxError) -> [OutgoingWebhook]) -> HandlerResult {
        let now = context.clock.now()
        do throws(SandboxError) {
            let events = try store.withState { (state) throws(SandboxError) in try body(&state, now) }
            return HandlerResult(.json(200, summary(events)), events: events)
        } catch { return errorResult(error) }
    }

    private func pay(_ provider: String, _ id: String, _ body: JSONValue) -> HandlerResult {
        if provider == SandboxProvider.stripe.rawValue { return checkout.stripeControls.pay(sessionID: id, body: body) }
        let now = context.clock.now()
        do throws(SandboxError) {
            var trialDays: Int?
            if let value = body["trial_days"], !value.isNull {
                guard let days = value.intValue, (1...730).contains(days) else {
                    throw .invalid("trial_days must be a whole number of days, 1...730")
                }
                trialDays = days
            }
            let (fields, events): ([JSONField], [OutgoingWebhook]) = try store.withState { (state) throws(SandboxError) in
                switch SandboxProvider(rawValue: provider) {
                case .lemonSqueezy:
                    let p = try LemonSqueezyLifecycle(resources: checkout.ls, now: now).purchase(
                        checkoutID: id, email: body["email"]?.stringValue, name: body["name"]?.stringValue, trialDays: trialDays, state: &state)
                    return (
                        [
                            JSONField(key: "order_id", value: .int(p.orderID)), JSONField(key: "subscription_id", value: JSONValue(p.subscriptionID)),
                            JSONField(key: "redirect_url", value: JSONValue(p.redirectURL)),
                        ], p.events
                    )
                case .paystack:
                    // Paystack documents no free trials (a plan starts charging when subscribed).
                    if trialDays != nil { throw .unsupported("Paystack has no free trials; trial_days is for Lemon Squeezy only.") }
                    let p = try PaystackLifecycle(resources: checkout.ps, now: now).purchase(
                        accessCodeOrReference: id, email: body["email"]?.stringValue, state: &state)
                    return (
                        [
                            JSONField(key: "reference", value: .string(p.reference)),
                            JSONField(key: "subscription_code", value: JSONValue(p.subscriptionCode)),
                            JSONField(key: "redirect_url", value: JSONValue(p.redirectURL)),
                        ], p.events
                    )
                case .stripe, nil:
                    throw .notFound("Unknown provider \(provider).")
                }
            }
            return HandlerResult(.json(200, summary(events, extra: fields)), events: events)
        } catch { return errorResult(error) }
    }

    /// `{"action": "create"|"remind"|"resolve", "resolution"?, "amount"?}` on a Paystack transaction.
    private func dispute(_ reference: String, _ body: JSONValue) -> HandlerResult {
        let resources = checkout.ps
        let now = context.clock.now()
        do throws(SandboxError) {
            guard let name = body["action"]?.stringValue, let action = PaystackLifecycle.DisputeAction(rawValue: name) else {
                throw .invalid("action must be create, remind or resolve")
            }
            var resolution: String?
            if let value = body["resolution"], !value.isNull {
                guard let text = value.stringValue else { throw .invalid("resolution must be merchant-accepted or declined") }
                resolution = text
            }
            let amount = try Self.amount(body)
            let events = try store.withState { (state) throws(SandboxError) -> [OutgoingWebhook] in
                try PaystackLifecycle(resources: resources, now: now).dispute(
                    reference: reference, action: action, resolution: resolution, amount: amount, state: &state
                ).events
            }
            let dispute = events.first?.payload["data"] ?? .null
            return HandlerResult(.json(200, summary(events, extra: [JSONField(key: "dispute", value: dispute)])), events: events)
        } catch { return errorResult(error) }
    }

    private func lemonSqueezy(_ idText: String, _ actionText: String, _ body: JSONValue) -> HandlerResult {
        guard let action = LemonSqueezyLifecycle.Action(rawValue: actionText) else {
            return json(404, ["error": .string("unknown action \(actionText)")])
        }
        guard let id = Int(idText) else { return json(404, ["error": .string("No subscription \(idText).")]) }
        let resumesAtText = body["resumes_at"]?.stringValue
        let resumesAt = resumesAtText.flatMap(Formatting.parseISO)
        if resumesAtText != nil, resumesAt == nil { return json(422, ["error": "resumes_at must be an ISO-8601 date"]) }
        let resources = checkout.ls
        let now = context.clock.now()
        do throws(SandboxError) {
            let (subscription, events) = try store.withState { (state) throws(SandboxError) -> (JSONValue, [OutgoingWebhook]) in
                let events = try LemonSqueezyLifecycle(resources: resources, now: now).apply(
                    action, subscriptionID: id, pauseMode: body["mode"]?.stringValue, resumesAt: resumesAt,
                    refundAmount: action == .refund ? try Self.amount(body) : nil, state: &state)
                return (state.lsSubscriptions[id].map(resources.subscription) ?? .null, events)
            }
            return HandlerResult(.json(200, summary(events, extra: [JSONField(key: "subscription", value: subscription)])), events: events)
        } catch { return errorResult(error) }
    }

    private func paystack(_ code: String, _ actionText: String, _ body: JSONValue) -> HandlerResult {
        guard let action = PaystackLifecycle.Action(rawValue: actionText) else {
            return json(404, ["error": .string("unknown action \(actionText)")])
        }
        let resources = checkout.ps
        let now = context.clock.now()
        do throws(SandboxError) {
            let (subscription, events) = try store.withState { (state) throws(SandboxError) -> (JSONValue, [OutgoingWebhook]) in
                let events = try PaystackLifecycle(resources: resources, now: now).apply(
                    action, subscriptionCode: code, endStatus: body["status"]?.stringValue,
                    refundAmount: action == .refund ? try Self.amount(body) : nil, state: &state)
                let s = state.psSubscriptions.values.first { $0.code == code || String($0.id) == code }
                return (s.map { resources.subscription($0, state: state) } ?? .null, events)
            }
            return HandlerResult(.json(200, summary(events, extra: [JSONField(key: "subscription", value: subscription)])), events: events)
        } catch { return errorResult(error) }
    }
}
