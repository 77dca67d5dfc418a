import Foundation

extension StripeLifecycle {
    /// `proration_behavior` values Stripe accepts on a subscription update.
    static let prorationBehaviors: Set<String> = ["create_prorations", "none", "always_invoice"]

    /// Moves subscription `id`'s item `itemID` to `priceID`, as Stripe does
    /// (``PriceChangeQuote``): a price of another interval starts a new period
    /// now and is invoiced at once; the same interval keeps the period and,
    /// with `always_invoice`, invoices the prorated difference now
    /// (`create_prorations` would leave it for the next invoice: nothing is
    /// charged now). Emits `invoice.paid` when money is taken, then
    /// `customer.subscription.updated` with the previous `items`.
    func changePrice(
        subscriptionID id: String, itemID: String, priceID: String, proration: String, state: inout StripeState
    ) throws(SandboxError) -> [OutgoingWebhook] {
        guard var s = state.subscriptions[id] else { throw .notFound("No such subscription: '\(id)'") }
        let quote = try quotePriceChange(s, itemID: itemID, priceID: priceID, proration: proration, at: now)
        let before = s
        s.priceID = priceID
        s.periodStart = quote.periodStart
        s.periodEnd = quote.periodEnd
        var events: [OutgoingWebhook] = []
        var previous = [JSONField(key: "items", value: resources.subscription(before)["items"] ?? .null)]
        if quote.chargedNow > 0 {
            var invoice = paidInvoice(s, reason: "subscription_update", amount: quote.chargedNow, currency: quote.currency, state: &state)
            invoice.lines = quote.lines
            state.invoices[invoice.id] = invoice
            s.latestInvoiceID = invoice.id
            previous.append(JSONField(key: "latest_invoice", value: JSONValue(before.latestInvoiceID)))
            state.subscriptions[id] = s
            events.append(webhooks.event("invoice.paid", resources.invoice(invoice, state: state), state: &state))
        }
        state.subscriptions[id] = s
        events.append(webhooks.event("customer.subscription.updated", resources.subscription(s), previous: previous, state: &state))
        return events
    }

    /// What moving `s`'s item to `priceID` at `date` invoices, computed as
    /// Stripe documents it: the unused time of the current price is credited
    /// (unless `proration` is `none`), the new price is charged for the rest
    /// of the period (same interval) or for a whole new period that starts at
    /// `date` (another interval: Stripe resets the billing date and invoices
    /// at once). Pure, so the update and `POST /v1/invoices/create_preview`
    /// compute the same amounts.
    func quotePriceChange(
        _ s: STSubscription, itemID: String, priceID: String, proration: String, at date: Date
    ) throws(SandboxError) -> PriceChangeQuote {
        guard s.status != "canceled", s.status != "incomplete_expired" else {
            throw .invalid("A canceled subscription can only update its cancellation_details and metadata.")
        }
        guard s.itemID == itemID else { throw .invalid("Invalid subscription_item id: \(itemID.prefix(40))") }
        guard let old = catalog.price(s.priceID) else { throw .notFound("No such price: '\(s.priceID)'") }
        guard let new = catalog.price(priceID), new.active, new.isRecurring else {
            throw .invalid("No such recurring, active price: '\(priceID.prefix(40))'")
        }
        let length = s.periodEnd.timeIntervalSince(s.periodStart)
        let unused = length > 0 ? min(max(s.periodEnd.timeIntervalSince(date) / length, 0), 1) : 0
        let prorating = proration != "none"
        let credit = prorating ? Int((Double(old.unitAmount) * unused).rounded()) : 0
        var quote = PriceChangeQuote(currency: new.currency, periodStart: s.periodStart, periodEnd: s.periodEnd)
        if credit > 0 {
            quote.lines.append(.init(amount: -credit, start: date, end: s.periodEnd, proration: true, priceID: old.id, description: "Unused time"))
        }
        if new.interval != old.interval || new.intervalCount != old.intervalCount {
            quote.periodStart = date
            quote.periodEnd = advance(date, new)
            quote.lines.append(
                .init(amount: new.unitAmount, start: date, end: quote.periodEnd, proration: false, priceID: new.id, description: "1 ×"))
            quote.invoicedNow = true
            return quote
        }
        if prorating {
            let remaining = Int((Double(new.unitAmount) * unused).rounded())
            quote.lines.append(
                .init(amount: remaining, start: date, end: s.periodEnd, proration: true, priceID: new.id, description: "Remaining time"))
        }
        quote.invoicedNow = proration == "always_invoice"
        if !quote.invoicedNow {
            // The renewal invoice then carries the new price (and any prorations).
            quote.lines.append(
                .init(
                    amount: new.unitAmount, start: s.periodEnd, end: advance(s.periodEnd, new), proration: false, priceID: new.id, description: "1 ×")
            )
        }
        return quote
    }
}

/// The invoice lines of a price change (``StripeLifecycle/quotePriceChange(_:itemID:priceID:proration:at:)``)
/// and the period the subscription has afterwards.
struct PriceChangeQuote: Sendable {
    struct Line: Sendable {
        var amount: Int
        var start: Date
        var end: Date
        var proration: Bool
        var priceID: String
        var description: String
    }

    var currency: String
    var periodStart: Date
    var periodEnd: Date
    /// When invoiced now, the lines of that invoice; otherwise those of the next one (the renewal's).
    var lines: [Line] = []
    /// Whether the lines are invoiced at once (`always_invoice`, or a change of interval).
    var invoicedNow = false

    /// What the change takes from the card now: the invoice's total, or 0 for a credit (or no invoice now).
    var chargedNow: Int { invoicedNow ? max(total, 0) : 0 }
    var total: Int { lines.reduce(0) { $0 + $1.amount } }
}
