import Foundation

/// `POST /v1/checkout/sessions`, `POST|DELETE /v1/subscriptions/{id}`, `POST /v1/billing_portal/sessions`.
extension StripeAPI {
    /// A hosted Checkout Session for one price: `mode` (`payment` for a
    /// one-time price, `subscription` for a recurring one), `line_items[0][price]`
    /// (and `[quantity]`), `success_url`, optional `cancel_url`,
    /// `client_reference_id`, `customer_email`, `metadata[…]`,
    /// `subscription_data[metadata][…]`, `subscription_data[trial_period_days]`,
    /// `payment_intent_data[metadata][…]`, `discounts[0][promotion_code]`
    /// (or `allow_promotion_codes`), `automatic_tax[enabled]`, `locale`. Expires in 24 hours.
    func createSession(_ params: JSONValue) -> SandboxResponse {
        guard let mode = params["mode"]?.stringValue else { return StripeErrors.missingParameter("mode") }
        guard mode == "payment" || mode == "subscription" else {
            return StripeErrors.invalid("Invalid mode: must be one of payment or subscription (setup is not emulated)", param: "mode")
        }
        guard let successURL = params["success_url"]?.stringValue, !successURL.isEmpty else { return StripeErrors.missingParameter("success_url") }
        guard let items = params["line_items"]?.arrayValue, items.count == 1, let priceID = items[0]["price"]?.stringValue else {
            return StripeErrors.missingParameter("line_items[0][price]")
        }
        guard let price = resources.catalog.price(priceID), price.active else {
            return StripeErrors.missing("price", priceID, param: "line_items[0][price]")
        }
        if price.isRecurring != (mode == "subscription") {
            return StripeErrors.invalid(
                mode == "payment"
                    ? "You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices."
                    : "You must provide at least one recurring price in `subscription` mode when using prices.", param: "line_items[0][price]")
        }
        let quantity = items[0]["quantity"]?.stringValue.flatMap { Int($0) } ?? 1
        guard (1...99).contains(quantity) else { return StripeErrors.invalid("Invalid integer: quantity", param: "line_items[0][quantity]") }
        var trialDays: Int?
        if let text = params["subscription_data"]?["trial_period_days"]?.stringValue {
            guard mode == "subscription", let days = Int(text), (1...730).contains(days) else {
                return StripeErrors.invalid("trial_period_days must be 1...730 in subscription mode", param: "subscription_data[trial_period_days]")
            }
            trialDays = days
        }
        guard let metadata = Self.metadata(params["metadata"]), let subscriptionMetadata = Self.metadata(params["subscription_data"]?["metadata"]),
            let paymentMetadata = Self.metadata(params["payment_intent_data"]?["metadata"])
        else {
            return StripeErrors.invalid("Metadata: at most 50 keys of up to 40 characters, values of up to 500 characters.", param: "metadata")
        }
        let promotion: StripeCatalog.PromotionCode?
        switch sessionPromotionCode(params, price: price) {
        case .success(let code): promotion = code
        case .failure(let refusal): return refusal.response
        }
        let offer = Self.sessionOffer(params)
        if let refusal = offer.refusal { return refusal }
        let reference = params["client_reference_id"]?.stringValue
        if let reference, reference.utf8.count > 200 {
            return StripeErrors.invalid("client_reference_id is longer than 200 characters", param: "client_reference_id")
        }
        let now = context.clock.now()
        let session: STSession? = try? store.withState { (state) throws(SandboxError) -> STSession in
            let id = "cs_test_a" + state.stripe.id("", .session)
            var session = STSession(
                id: id, mode: mode, priceID: price.id, quantity: quantity, successURL: successURL, cancelURL: params["cancel_url"]?.stringValue,
                clientReferenceID: reference, customerEmail: params["customer_email"]?.stringValue, metadata: metadata,
                subscriptionMetadata: mode == "subscription" ? subscriptionMetadata : [], paymentMetadata: mode == "payment" ? paymentMetadata : [],
                trialDays: trialDays, createdAt: now, expiresAt: now.addingTimeInterval(86_400))
            session.promotionCodeID = promotion?.id
            session.amountDiscount = promotion?.reduction(of: price.unitAmount * quantity) ?? 0
            session.automaticTax = offer.automaticTax
            session.allowPromotionCodes = offer.allowPromotionCodes
            session.locale = offer.locale
            state.stripe.sessions[id] = session
            return session
        }
        guard let session else { return StripeErrors.invalid("The session could not be created.") }
        return .json(200, store.read { resources.session(session, state: $0.stripe) })
    }

    /// `cancel_at_period_end=true|false`, or a price change (`items[0][id]`,
    /// `items[0][price]`, `proration_behavior`); answered with the subscription
    /// as Stripe then holds it, with the webhooks of what changed.
    func updateSubscription(_ id: String, _ params: JSONValue) -> HandlerResult {
        if params["items"] != nil { return changePrice(id, params) }
        guard let flag = params["cancel_at_period_end"]?.stringValue else {
            return HandlerResult(StripeErrors.invalid("The sandbox updates cancel_at_period_end only.", param: "cancel_at_period_end"))
        }
        guard flag == "true" || flag == "false" else {
            return HandlerResult(StripeErrors.invalid("Invalid boolean: \(flag.prefix(20))", param: "cancel_at_period_end"))
        }
        return change { state, lifecycle throws(SandboxError) in
            guard let s = state.subscriptions[id] else { throw .notFound("No such subscription: '\(id)'") }
            guard s.status != "canceled" else {
                throw .invalid("A canceled subscription can only update its cancellation_details and metadata.")
            }
            if s.cancelAtPeriodEnd == (flag == "true") { return [] }
            return try lifecycle.apply(flag == "true" ? .cancel : .resume, subscriptionID: id, state: &state)
        } answer: { state in
            state.subscriptions[id].map(resources.subscription)
        }
    }

    /// `items[0][id]` and `items[0][price]` (one item, as the sandbox's subscriptions have), `proration_behavior`.
    func changePrice(_ id: String, _ params: JSONValue) -> HandlerResult {
        guard let items = params["items"]?.arrayValue, items.count == 1, let itemID = items[0]["id"]?.stringValue else {
            return HandlerResult(StripeErrors.missingParameter("items[0][id]"))
        }
        guard let priceID = items[0]["price"]?.stringValue else { return HandlerResult(StripeErrors.missingParameter("items[0][price]")) }
        let proration = params["proration_behavior"]?.stringValue ?? "create_prorations"
        guard StripeLifecycle.prorationBehaviors.contains(proration) else {
            return HandlerResult(
                StripeErrors.invalid(
                    "Invalid proration_behavior: must be one of always_invoice, create_prorations, or none", param: "proration_behavior"))
        }
        return change { state, lifecycle throws(SandboxError) in
            try lifecycle.changePrice(subscriptionID: id, itemID: itemID, priceID: priceID, proration: proration, state: &state)
        } answer: { state in
            state.subscriptions[id].map(resources.subscription)
        }
    }

    /// A Billing Portal session for `customer` (required), with `return_url`;
    /// its `url` opens the sandbox's manage page for the customer's latest subscription.
    func createPortalSession(_ params: JSONValue) -> SandboxResponse {
        guard let customer = params["customer"]?.stringValue else { return StripeErrors.missingParameter("customer") }
        let now = context.clock.now()
        let answer: JSONValue? = try? store.withState { (state) throws(SandboxError) -> JSONValue in
            guard state.stripe.customers[customer] != nil else { throw .notFound("No such customer") }
            let latest = state.stripe.subscriptions.values.filter { $0.customerID == customer }.max { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
            let id = state.stripe.id("bps_", .portal)
            let url = "\(context.publicBase)/manage/stripe/\(latest?.id ?? customer)?portal_session=\(id)"
            return resources.portalSession(id: id, customerID: customer, returnURL: params["return_url"]?.stringValue, url: url, created: now)
        }
        return answer.map { .json(200, $0) } ?? StripeErrors.missing("customer", customer, param: "customer")
    }

    /// Runs a state change; answers with `answer` read after it (404 when nil), and sends its webhooks.
    func change(
        _ body: (inout StripeState, StripeLifecycle) throws(SandboxError) -> [OutgoingWebhook], answer: (StripeState) -> JSONValue?
    ) -> HandlerResult {
        let lifecycle = self.lifecycle
        do throws(SandboxError) {
            let (events, value) = try store.withState { (state) throws(SandboxError) -> ([OutgoingWebhook], JSONValue?) in
                let events = try body(&state.stripe, lifecycle)
                return (events, answer(state.stripe))
            }
            guard let value else { return HandlerResult(StripeErrors.missing("object", "")) }
            return HandlerResult(.json(200, value), events: events)
        } catch {
            return HandlerResult(StripeErrors.from(error))
        }
    }

    /// `automatic_tax[enabled]`, `allow_promotion_codes` and `locale`, or the
    /// refusal of a malformed one. The locale's shape is checked (`auto`, or a
    /// language with an optional region such as `pt-BR` or `es-419`), not Stripe's exact list.
    static func sessionOffer(_ params: JSONValue) -> (automaticTax: Bool, allowPromotionCodes: Bool, locale: String?, refusal: SandboxResponse?) {
        func flag(_ value: JSONValue?, _ param: String) -> (Bool, SandboxResponse?) {
            guard let text = value?.stringValue else { return (false, nil) }
            guard text == "true" || text == "false" else { return (false, StripeErrors.invalid("Invalid boolean: \(text.prefix(20))", param: param)) }
            return (text == "true", nil)
        }
        let tax = flag(params["automatic_tax"]?["enabled"], "automatic_tax[enabled]")
        let allow = flag(params["allow_promotion_codes"], "allow_promotion_codes")
        var locale = params["locale"]?.stringValue
        if let given = locale {
            let parts = given.split(separator: "-", omittingEmptySubsequences: false)
            let shaped =
                given == "auto"
                || ((2...3).contains(parts[0].count) && parts[0].allSatisfy(\.isLowercase) && parts.count <= 2
                    && parts.dropFirst().allSatisfy { ($0.count == 2 && $0.allSatisfy(\.isUppercase)) || $0 == "419" })
            if !shaped { return (false, false, nil, StripeErrors.invalid("Invalid locale: \(given.prefix(20))", param: "locale")) }
            if given == "auto" { locale = nil }
        }
        return (tax.0, allow.0, locale, tax.1 ?? allow.1)
    }

    /// `metadata[k]=v` pairs as fields; nil past Stripe's limits (50 keys, 40-character keys, 500-character values).
    static func metadata(_ value: JSONValue?) -> [JSONField]? {
        guard let value, !value.isNull else { return [] }
        guard let fields = value.objectValue, fields.count <= 50 else { return nil }
        for field in fields {
            guard field.key.count <= 40, let text = field.value.stringValue, text.count <= 500 else { return nil }
        }
        return fields
    }
}
