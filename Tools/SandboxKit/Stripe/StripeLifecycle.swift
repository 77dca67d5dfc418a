import Foundation

/// Stripe state changes and the events each sends. A paid Checkout sends
/// `customer.subscription.created`, `invoice.paid` (a subscription; a trial's
/// first invoice is $0 and paid too) and `checkout.session.completed`; each
/// later change sends what Stripe sends for it (see ``Action``).
struct StripeLifecycle {
    let resources: StripeResources
    let now: Date
    var webhooks: StripeWebhooks { StripeWebhooks(now: now) }
    var catalog: StripeCatalog { resources.catalog }

    struct Purchase: Sendable {
        let session: STSession
        let redirectURL: String
        let events: [OutgoingWebhook]
    }

    /// The controls on a subscription (`POST /_sandbox/stripe/subscriptions/{id}/{action}`).
    enum Action: String, Sendable, CaseIterable {
        /// The period (or the trial) ends and the next invoice is paid: `invoice.paid`, `customer.subscription.updated`.
        case renew
        /// The renewal charge fails: `invoice.payment_failed`, `customer.subscription.updated` (`past_due`).
        case paymentFailed = "payment_failed"
        /// A retry of the open invoice succeeds: `invoice.paid`, `customer.subscription.updated` (`active`).
        case recover
        /// Retries are exhausted: `customer.subscription.updated` (`unpaid`).
        case unpaid
        /// Cancel at period end: `customer.subscription.updated` (`cancel_at_period_end: true`).
        case cancel
        /// Undo a cancel at period end: `customer.subscription.updated` (`cancel_at_period_end: false`).
        case resume
        /// The trial ends without a payment method: `customer.subscription.paused` and `.updated` (`paused`).
        case pause
        /// `customer.subscription.resumed` and `.updated` (`active`, a new period).
        case unpause
        /// The subscription ends: `customer.subscription.deleted` (`canceled`).
        case expire
        /// Refunds the latest payment (`{"amount"?}`): `charge.refunded`.
        case refund
    }

    /// Pays the session: a customer for the email, then the payment or the subscription.
    func purchase(sessionID: String, email override: String?, trialDays: Int?, state: inout StripeState) throws(SandboxError) -> Purchase {
        guard var session = state.sessions[sessionID] else { throw .notFound("No such checkout.session: '\(sessionID)'") }
        guard session.status == "open" else { throw .conflict("Checkout session \(sessionID) is \(session.status).") }
        guard session.expiresAt > now else { throw .invalid("Checkout session \(sessionID) has expired.") }
        let email = (override?.isEmpty == false ? override! : session.customerEmail ?? "").trimmingCharacters(in: .whitespaces)
        guard email.contains("@"), email.utf8.count <= 254 else { throw .invalid("Enter a valid email address.") }
        guard let price = catalog.price(session.priceID) else { throw .notFound("No such price: '\(session.priceID)'") }
        // `customer_creation`: a subscription always gets a Customer; a one-time
        // payment (`if_required`) does not, and only `customer_details` has the payer.
        session.payerEmail = email
        session.status = "complete"
        var events: [OutgoingWebhook] = []
        if session.mode == "subscription" {
            let customer = customer(email: email, state: &state)
            session.customerID = customer.id
            let trial = trialDays ?? session.trialDays
            let subscriptionID = state.id("sub_", .subscription)
            let trialEnd = trial.map { now.addingTimeInterval(TimeInterval($0) * 86_400) }
            var s = STSubscription(
                id: subscriptionID, itemID: "si_" + subscriptionID.dropFirst(4), customerID: customer.id, priceID: price.id,
                metadata: session.subscriptionMetadata, status: trial == nil ? "active" : "trialing", trialStart: trial == nil ? nil : now,
                trialEnd: trialEnd, periodStart: now, periodEnd: trialEnd ?? advance(now, price), createdAt: now)
            // The promotion code (a `once` coupon) lowers the first invoice.
            let invoice = newInvoice(
                s, reason: "subscription_create", amount: trial == nil ? price.unitAmount * session.quantity - session.amountDiscount : 0,
                state: &state)
            var paid = invoice
            if invoice.amountDue > 0 {
                let payment = pay(
                    amount: invoice.amountDue, currency: price.currency, customerID: customer.id, metadata: [], invoiceID: invoice.id, state: &state)
                paid.paymentIntentID = payment.paymentIntentID
            }
            paid.status = "paid"
            paid.attemptCount = invoice.amountDue > 0 ? 1 : 0
            paid.paidAt = now
            state.invoices[paid.id] = paid
            s.latestInvoiceID = paid.id
            state.subscriptions[s.id] = s
            session.subscriptionID = s.id
            session.invoiceID = paid.id
            events.append(webhooks.event("customer.subscription.created", resources.subscription(s), state: &state))
            events.append(webhooks.event("invoice.paid", resources.invoice(paid, state: state), state: &state))
        } else {
            let payment = pay(
                amount: price.unitAmount * session.quantity - session.amountDiscount, currency: price.currency, customerID: nil,
                metadata: session.paymentMetadata,
                invoiceID: nil,
                state: &state)
            session.paymentIntentID = payment.paymentIntentID
        }
        state.sessions[session.id] = session
        events.append(webhooks.event("checkout.session.completed", resources.session(session, state: state), state: &state))
        let redirect = session.successURL.replacingOccurrences(of: "{CHECKOUT_SESSION_ID}", with: session.id)
        return Purchase(session: session, redirectURL: redirect, events: events)
    }

    func customer(email: String, state: inout StripeState) -> STCustomer {
        if let existing = state.customers.values.first(where: { $0.email.lowercased() == email.lowercased() }) { return existing }
        let c = STCustomer(id: state.id("cus_", .customer), email: email, createdAt: now)
        state.customers[c.id] = c
        return c
    }

    /// Applies `action` to subscription `id`.
    func apply(
        _ action: Action, subscriptionID id: String, refundAmount: Int? = nil, state: inout StripeState
    ) throws(SandboxError) -> [OutgoingWebhook] {
        guard var s = state.subscriptions[id] else { throw .notFound("No such subscription: '\(id)'") }
        guard let price = catalog.price(s.priceID) else { throw .notFound("No such price: '\(s.priceID)'") }
        let before = s
        var events: [OutgoingWebhook] = []
        func updated(_ previous: [JSONField], type: String = "customer.subscription.updated") {
            events.append(webhooks.event(type, resources.subscription(s), previous: previous, state: &state))
        }
        let ended = s.status == "canceled" || s.status == "incomplete_expired"
        if ended, action != .refund { throw .invalid("Subscription \(id) has ended (status is \(s.status)).") }
        switch action {
        case .renew:
            guard ["active", "trialing"].contains(s.status) else {
                throw .invalid("Only an active or trialing subscription renews (status is \(s.status)).")
            }
            guard !s.cancelAtPeriodEnd else { throw .invalid("Subscription \(id) is set to cancel at period end; expire it instead.") }
            // A schedule's next phase takes over at the period's end; its last phase releases the subscription.
            var price = price
            if let scheduleID = s.scheduleID, var schedule = state.schedules[scheduleID], let next = schedule.phase(startingAt: s.periodEnd),
                let phasePrice = catalog.price(next.priceID)
            {
                s.priceID = next.priceID
                price = phasePrice
                if schedule.phases.last?.start == next.start {
                    schedule.status = "released"
                    s.scheduleID = nil
                }
                state.schedules[scheduleID] = schedule
            }
            s.periodStart = s.periodEnd
            s.periodEnd = advance(s.periodStart, price)
            let invoice = paidInvoice(s, reason: "subscription_cycle", amount: price.unitAmount, currency: price.currency, state: &state)
            s.latestInvoiceID = invoice.id
            s.status = "active"
            state.subscriptions[id] = s
            events.append(webhooks.event("invoice.paid", resources.invoice(invoice, state: state), state: &state))
            var previous = [
                JSONField(key: "items", value: resources.subscription(before)["items"] ?? .null),
                JSONField(key: "latest_invoice", value: JSONValue(before.latestInvoiceID)),
            ]
            if before.status != s.status { previous.append(JSONField(key: "status", value: .string(before.status))) }
            updated(previous)
        case .paymentFailed:
            guard ["active", "trialing"].contains(s.status) else {
                throw .invalid("Only an active or trialing subscription fails a renewal (status is \(s.status)).")
            }
            s.periodStart = s.periodEnd
            s.periodEnd = advance(s.periodStart, price)
            var invoice = newInvoice(s, reason: "subscription_cycle", amount: price.unitAmount, state: &state)
            invoice.attemptCount = 1
            invoice.nextPaymentAttempt = now.addingTimeInterval(3 * 86_400)
            state.invoices[invoice.id] = invoice
            var failed = pay(
                amount: invoice.amountDue, currency: price.currency, customerID: s.customerID, metadata: [], invoiceID: invoice.id, state: &state)
            failed.status = "requires_payment_method"
            state.payments[failed.paymentIntentID] = failed
            s.latestInvoiceID = invoice.id
            s.status = "past_due"
            state.subscriptions[id] = s
            events.append(webhooks.event("invoice.payment_failed", resources.invoice(invoice, state: state), state: &state))
            updated([
                JSONField(key: "status", value: .string(before.status)), JSONField(key: "latest_invoice", value: JSONValue(before.latestInvoiceID)),
            ])
        case .recover:
            guard s.status == "past_due" || s.status == "unpaid", let open = s.latestInvoiceID, var invoice = state.invoices[open],
                invoice.status != "paid"
            else {
                throw .invalid("Only a past_due or unpaid subscription with an open invoice recovers (status is \(s.status)).")
            }
            let payment = pay(
                amount: invoice.amountDue, currency: price.currency, customerID: s.customerID, metadata: [], invoiceID: invoice.id, state: &state)
            invoice.paymentIntentID = payment.paymentIntentID
            invoice.status = "paid"
            invoice.attemptCount += 1
            invoice.nextPaymentAttempt = nil
            invoice.paidAt = now
            state.invoices[invoice.id] = invoice
            s.status = "active"
            state.subscriptions[id] = s
            events.append(webhooks.event("invoice.paid", resources.invoice(invoice, state: state), state: &state))
            updated([JSONField(key: "status", value: .string(before.status))])
        case .unpaid:
            guard s.status == "past_due" else { throw .invalid("Only a past_due subscription turns unpaid (status is \(s.status)).") }
            if let open = s.latestInvoiceID, var invoice = state.invoices[open] {
                invoice.nextPaymentAttempt = nil
                invoice.attemptCount += 3
                state.invoices[open] = invoice
            }
            s.status = "unpaid"
            state.subscriptions[id] = s
            updated([JSONField(key: "status", value: .string(before.status))])
        case .cancel:
            guard !s.cancelAtPeriodEnd else { throw .invalid("Subscription \(id) is already set to cancel at period end.") }
            s.cancelAtPeriodEnd = true
            s.canceledAt = now
            state.subscriptions[id] = s
            updated([
                JSONField(key: "cancel_at", value: nil), JSONField(key: "cancel_at_period_end", value: false),
                JSONField(key: "canceled_at", value: nil),
            ])
        case .resume:
            guard s.cancelAtPeriodEnd else { throw .invalid("Subscription \(id) is not set to cancel.") }
            s.cancelAtPeriodEnd = false
            s.canceledAt = nil
            state.subscriptions[id] = s
            updated([
                JSONField(key: "cancel_at", value: StripeResources.ts(before.periodEnd)), JSONField(key: "cancel_at_period_end", value: true),
                JSONField(key: "canceled_at", value: StripeResources.ts(before.canceledAt)),
            ])
        case .pause:
            guard s.status == "trialing" else {
                throw .invalid("Stripe pauses a subscription whose trial ends without a payment method; status is \(s.status).")
            }
            s.status = "paused"
            state.subscriptions[id] = s
            updated([JSONField(key: "status", value: .string(before.status))], type: "customer.subscription.paused")
            updated([JSONField(key: "status", value: .string(before.status))])
        case .unpause:
            guard s.status == "paused" else { throw .invalid("Only a paused subscription resumes (status is \(s.status)).") }
            s.status = "active"
            s.periodStart = now
            s.periodEnd = advance(now, price)
            s.trialEnd = s.trialEnd.map { min($0, now) }
            state.subscriptions[id] = s
            updated([JSONField(key: "status", value: .string(before.status))], type: "customer.subscription.resumed")
            updated([JSONField(key: "status", value: .string(before.status))])
        case .expire:
            s.status = "canceled"
            s.canceledAt = s.canceledAt ?? now
            s.endedAt = now
            state.subscriptions[id] = s
            events.append(webhooks.event("customer.subscription.deleted", resources.subscription(s), state: &state))
        case .refund:
            let latest = state.payments.values.filter { p in
                p.invoiceID.flatMap { state.invoices[$0]?.subscriptionID } == id && p.status == "succeeded"
            }
            .max { $0.createdAt < $1.createdAt || ($0.createdAt == $1.createdAt && $0.paymentIntentID < $1.paymentIntentID) }
            guard let latest else { throw .invalid("Subscription \(id) has no successful payment to refund.") }
            events += try refund(paymentIntentID: latest.paymentIntentID, amount: refundAmount, state: &state)
        }
        return events
    }

    /// Refunds `amount` (nil: all that is left) of a payment: `charge.refunded`.
    func refund(paymentIntentID: String, amount: Int?, state: inout StripeState) throws(SandboxError) -> [OutgoingWebhook] {
        guard var p = state.payments[paymentIntentID] ?? state.payment(charge: paymentIntentID) else {
            throw .notFound("No such payment_intent: '\(paymentIntentID)'")
        }
        guard p.status == "succeeded" else { throw .invalid("Payment \(p.paymentIntentID) did not succeed; nothing to refund.") }
        let left = p.amount - p.amountRefunded
        let refund = amount ?? left
        guard left > 0 else { throw .invalid("Charge \(p.chargeID) has already been refunded.") }
        guard refund > 0, refund <= left else { throw .invalid("Refund amount (\(refund)) is greater than unrefunded amount on charge (\(left)).") }
        let before = resources.charge(p)
        p.refunds.append(STRefund(id: state.id("re_", .refund), amount: refund, createdAt: now))
        state.payments[p.paymentIntentID] = p
        return [
            webhooks.event(
                "charge.refunded", resources.charge(p),
                previous: [
                    JSONField(key: "amount_refunded", value: before["amount_refunded"] ?? 0),
                    JSONField(key: "refunds", value: before["refunds"] ?? .null),
                ], state: &state)
        ]
    }

    /// A chargeback: `create` opens one (`charge.dispute.created`, the whole amount), `close` ends it `won` or `lost` (`charge.dispute.closed`).
    func dispute(paymentIntentID: String, action: String, outcome: String?, state: inout StripeState) throws(SandboxError) -> [OutgoingWebhook] {
        guard var p = state.payments[paymentIntentID] ?? state.payment(charge: paymentIntentID), p.status == "succeeded" else {
            throw .notFound("No such charge: '\(paymentIntentID)'")
        }
        switch action {
        case "create":
            guard p.disputeID.flatMap({ state.disputes[$0] }).map({ $0.status == "won" || $0.status == "lost" }) ?? true else {
                throw .conflict("Charge \(p.chargeID) already has an open dispute.")
            }
            let d = STDispute(
                id: state.id("dp_", .dispute), paymentIntentID: p.paymentIntentID, amount: p.amount - p.amountRefunded, reason: "fraudulent",
                status: "needs_response", createdAt: now)
            state.disputes[d.id] = d
            p.disputeID = d.id
            state.payments[p.paymentIntentID] = p
            return [webhooks.event("charge.dispute.created", resources.dispute(d, payment: p), state: &state)]
        case "close":
            guard let id = p.disputeID, var d = state.disputes[id], d.status == "needs_response" else {
                throw .invalid("Charge \(p.chargeID) has no open dispute.")
            }
            guard let outcome, outcome == "won" || outcome == "lost" else { throw .invalid("status must be won or lost") }
            let previous = d.status
            d.status = outcome
            state.disputes[id] = d
            return [
                webhooks.event(
                    "charge.dispute.closed", resources.dispute(d, payment: p), previous: [JSONField(key: "status", value: .string(previous))],
                    state: &state)
            ]
        default:
            throw .invalid("action must be create or close")
        }
    }

    // MARK: - Helpers

    func advance(_ date: Date, _ price: StripeCatalog.Price) -> Date {
        Formatting.adding(price.interval == "year" ? .year : .month, price.intervalCount, to: date)
    }

    /// An invoice for `amount`, paid at once by the customer's card (the sandbox's card never declines here).
    func paidInvoice(_ s: STSubscription, reason: String, amount: Int, currency: String, state: inout StripeState) -> STInvoice {
        var invoice = newInvoice(s, reason: reason, amount: amount, state: &state)
        let payment = pay(amount: amount, currency: currency, customerID: s.customerID, metadata: [], invoiceID: invoice.id, state: &state)
        invoice.paymentIntentID = payment.paymentIntentID
        invoice.status = "paid"
        invoice.attemptCount = 1
        invoice.paidAt = now
        state.invoices[invoice.id] = invoice
        return invoice
    }

    private func newInvoice(_ s: STSubscription, reason: String, amount: Int, state: inout StripeState) -> STInvoice {
        let id = state.id("in_", .invoice)
        let invoice = STInvoice(
            id: id, number: "SBX-" + id.suffix(6), subscriptionID: s.id, customerID: s.customerID, billingReason: reason,
            amountDue: amount, currency: catalog.price(s.priceID)?.currency ?? "usd", periodStart: s.periodStart, periodEnd: s.periodEnd,
            status: "open",
            attemptCount: 0, nextPaymentAttempt: nil, paidAt: nil, paymentIntentID: nil, createdAt: now)
        state.invoices[id] = invoice
        return invoice
    }

    private func pay(
        amount: Int, currency: String, customerID: String?, metadata: [JSONField], invoiceID: String?, state: inout StripeState
    ) -> STPayment {
        let pi = state.id("pi_", .payment)
        let p = STPayment(
            paymentIntentID: pi, chargeID: "ch_" + pi.dropFirst(3), customerID: customerID, amount: amount, currency: currency, metadata: metadata,
            invoiceID: invoiceID, createdAt: now, status: "succeeded")
        state.payments[pi] = p
        return p
    }
}
