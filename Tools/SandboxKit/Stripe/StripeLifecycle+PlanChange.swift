import Foundation

extension StripeLifecycle {
    /// `proration_behavior` values Stripe accepts on a subscription update.
    static let prorationBehaviors: Set<String> = ["create_prorations", "none", "always_invoice"]

    /// Moves subscription `id`'s item `itemID` to `priceID`, as Stripe does:
    /// a price of another interval starts a new period now and is invoiced at
    /// once (the new price less the credit for the unused time, unless
    /// `proration` is `none`); the same interval keeps the period and, with
    /// `always_invoice`, invoices the prorated difference now
    /// (`create_prorations` would leave it for the next invoice: nothing is
    /// charged now). Emits `invoice.paid` when money is taken, then
    /// `customer.subscription.updated` with the previous `items`.
    func changePrice(
        subscriptionID id: String, itemID: String, priceID: String, proration: String, state: inout StripeState
    ) throws(SandboxError) -> [OutgoingWebhook] {
        guard var s = state.subscriptions[id] else { throw .notFound("No such subscription: '\(id)'") }
        guard s.status != "canceled", s.status != "incomplete_expired" else {
            throw .invalid("A canceled subscription can only update its cancellation_details and metadata.")
        }
        guard s.itemID == itemID else { throw .invalid("Invalid subscription_item id: \(itemID.prefix(40))") }
        guard let old = catalog.price(s.priceID) else { throw .notFound("No such price: '\(s.priceID)'") }
        guard let new = catalog.price(priceID), new.active, new.isRecurring else {
            throw .invalid("No such recurring, active price: '\(priceID.prefix(40))'")
        }
        let before = s
        let length = s.periodEnd.timeIntervalSince(s.periodStart)
        let unused = length > 0 ? min(max(s.periodEnd.timeIntervalSince(now) / length, 0), 1) : 0
        let credit = proration == "none" ? 0 : Int((Double(old.unitAmount) * unused).rounded())
        var charge: Int?
        s.priceID = new.id
        if new.interval != old.interval || new.intervalCount != old.intervalCount {
            s.periodStart = now
            s.periodEnd = advance(now, new)
            charge = max(new.unitAmount - credit, 0)
        } else if proration == "always_invoice" {
            charge = max(Int((Double(new.unitAmount) * unused).rounded()) - credit, 0)
        }
        var events: [OutgoingWebhook] = []
        var previous = [JSONField(key: "items", value: resources.subscription(before)["items"] ?? .null)]
        if let charge, charge > 0 {
            let invoice = paidInvoice(s, reason: "subscription_update", amount: charge, currency: new.currency, state: &state)
            s.latestInvoiceID = invoice.id
            previous.append(JSONField(key: "latest_invoice", value: JSONValue(before.latestInvoiceID)))
            state.subscriptions[id] = s
            events.append(webhooks.event("invoice.paid", resources.invoice(invoice, state: state), state: &state))
        }
        state.subscriptions[id] = s
        events.append(webhooks.event("customer.subscription.updated", resources.subscription(s), previous: previous, state: &state))
        return events
    }
}
