import Foundation

/// Paystack state changes and the webhooks each emits, following the
/// documented sequences: purchase `charge.success` then `subscription.create`;
/// each cycle `invoice.create` → `charge.success` or `invoice.payment_failed`
/// → `invoice.update`; cancel `subscription.not_renew`, end `subscription.disable`.
struct PaystackLifecycle {
    let resources: PaystackResources
    let now: Date
    var webhooks: PaystackWebhooks { PaystackWebhooks(resources: resources) }

    struct Purchase: Sendable {
        let reference: String
        let subscriptionCode: String?
        let redirectURL: String?
        let events: [OutgoingWebhook]
    }

    enum Action: String, Sendable {
        case renew, paymentFailed = "payment_failed", unpaid, recover, cancel, resume, pause, unpause, expire, refund
    }

    enum DisputeAction: String, Sendable {
        case create, remind, resolve
    }

    /// Who the sandbox names in a dispute's `history` for steps the customer did not take.
    static let disputeDesk = "disputes@provider-sandbox.test"

    /// Pays the transaction behind `accessCode` (or reference).
    ///
    /// The customer is the one with the payer's email (metadata plays no part,
    /// as on Paystack), and the payment gets a fresh authorization; a plan's
    /// subscription is created from that same authorization, so
    /// `charge.success` and `subscription.create` carry the same
    /// `authorization_code`.
    func purchase(accessCodeOrReference key: String, email override: String?, state: inout SandboxState) throws(SandboxError) -> Purchase {
        guard let reference = state.psAccessCodes[key] ?? (state.psTransactions[key] != nil ? key : nil), var t = state.psTransactions[reference]
        else {
            throw .notFound("No transaction for \(key).")
        }
        guard t.status == "abandoned" else { throw .conflict("Transaction \(reference) was already paid.") }
        let email = (override?.isEmpty == false ? override! : t.email).trimmingCharacters(in: .whitespaces)
        guard email.contains("@"), email.count <= 254 else { throw .invalid("Invalid Email Address Passed") }
        let customer = customer(email: email, state: &state)
        let authorization = PSAuthorization(issuedTo: customer.code)
        t.status = "success"
        t.paidAt = now
        t.customerID = customer.id
        t.authorization = authorization
        var events: [OutgoingWebhook] = []
        var subscriptionCode: String?
        if let planID = t.planID, let plan = resources.catalog.plans.first(where: { $0.id == planID }) {
            let id = state.next(.psSubscription)
            let s = PSSubscription(
                id: id, code: Formatting.code("SUB_", id), emailToken: Formatting.code("tok", id * 7919), status: "active",
                amount: t.amount, planID: plan.id, customerID: customer.id, authorization: authorization,
                start: now, nextPaymentDate: PaystackResources.advance(now, interval: plan.interval), openInvoice: nil,
                cancelledAt: nil, paymentsCount: 1, invoiceIDs: [], createdAt: now, updatedAt: now)
            state.psSubscriptions[id] = s
            t.subscriptionID = id
            subscriptionCode = s.code
            state.psTransactions[reference] = t
            events.append(webhooks.chargeSuccess(t, state: state))
            events.append(webhooks.event("subscription.create", webhooks.subscriptionData(s, state: state, includeToken: false)))
        } else {
            state.psTransactions[reference] = t
            events.append(webhooks.chargeSuccess(t, state: state))
        }
        var redirect: String?
        if let callback = t.callbackURL, !callback.isEmpty {
            let separator = callback.contains("?") ? "&" : "?"
            redirect = callback + separator + FormDecoding.encode([("trxref", reference), ("reference", reference)])
        }
        return Purchase(reference: reference, subscriptionCode: subscriptionCode, redirectURL: redirect, events: events)
    }

    func customer(email: String, state: inout SandboxState) -> PSCustomer {
        if let existing = state.psCustomer(email: email) { return existing }
        let id = state.next(.psCustomer)
        let c = PSCustomer(id: id, code: Formatting.code("CUS_", id), email: email, createdAt: now, updatedAt: now)
        state.addPSCustomer(c)
        return c
    }

    /// Applies `action` to the subscription with `code` (or id).
    /// - Parameter endStatus: for `expire` only: `cancelled` or `complete`
    ///   (`completed` accepted); nil picks `cancelled` for a non-renewing
    ///   subscription and `complete` otherwise.
    /// - Parameter refundAmount: for `refund` only: subunits to refund of the
    ///   latest successful charge; nil refunds all that is left of it.
    func apply(
        _ action: Action, subscriptionCode code: String, endStatus: String? = nil, refundAmount: Int? = nil, state: inout SandboxState
    ) throws(SandboxError) -> [OutgoingWebhook] {
        guard var s = state.psSubscriptions.values.first(where: { $0.code == code || String($0.id) == code }) else {
            throw .notFound("Subscription not found")
        }
        guard let plan = resources.catalog.plans.first(where: { $0.id == s.planID }) else { throw .notFound("Plan not found") }
        let ended = s.status == "cancelled" || s.status == "completed"
        var events: [OutgoingWebhook] = []
        switch action {
        case .pause, .unpause:
            throw .unsupported("Paystack has no pause for subscriptions; disable and enable it instead.")
        case .unpaid:
            throw .unsupported("Paystack has no unpaid status; a failed charge leaves the subscription in attention (payment_failed).")
        case .renew:
            guard s.status == "active" || s.status == "non-renewing" else {
                throw .invalid("Only an active subscription renews (status is \(s.status)).")
            }
            let due = s.nextPaymentDate ?? now
            var invoice = newInvoice(s, periodStart: due, periodEnd: PaystackResources.advance(due, interval: plan.interval), state: &state)
            s.openInvoice = invoice.code
            s.invoiceIDs.append(invoice.id)
            state.psSubscriptions[s.id] = s
            events.append(webhooks.event("invoice.create", webhooks.invoiceData(invoice, state: state)))
            let t = renewalCharge(s, state: &state)
            events.append(webhooks.chargeSuccess(t, state: state))
            invoice = settle(invoice, with: t, state: &state)
            s.openInvoice = nil
            s.paymentsCount += 1
            s.nextPaymentDate = invoice.periodEnd
            if s.status == "non-renewing" { s.status = "active" }
            s.updatedAt = now
            state.psSubscriptions[s.id] = s
            events.append(webhooks.event("invoice.update", webhooks.invoiceData(invoice, state: state)))
        case .paymentFailed:
            guard s.status == "active" else { throw .invalid("Only an active subscription can fail a charge (status is \(s.status)).") }
            let due = s.nextPaymentDate ?? now
            var invoice = newInvoice(s, periodStart: due, periodEnd: PaystackResources.advance(due, interval: plan.interval), state: &state)
            s.openInvoice = invoice.code
            s.invoiceIDs.append(invoice.id)
            state.psSubscriptions[s.id] = s
            events.append(webhooks.event("invoice.create", webhooks.invoiceData(invoice, state: state)))
            events.append(webhooks.event("invoice.payment_failed", webhooks.invoiceData(invoice, state: state)))
            invoice.status = "failed"
            invoice.description = "Insufficient Funds"
            state.psInvoices[invoice.id] = invoice
            s.status = "attention"
            s.updatedAt = now
            state.psSubscriptions[s.id] = s
            events.append(webhooks.event("invoice.update", webhooks.invoiceData(invoice, state: state)))
        case .recover:
            guard s.status == "attention", let open = s.invoiceIDs.last, let invoice = state.psInvoices[open], !invoice.paid else {
                throw .invalid("Only a subscription in attention with an unpaid invoice can recover (status is \(s.status)).")
            }
            let t = renewalCharge(s, state: &state)
            events.append(webhooks.chargeSuccess(t, state: state))
            let paid = settle(invoice, with: t, state: &state)
            s.status = "active"
            s.openInvoice = nil
            s.paymentsCount += 1
            s.nextPaymentDate = paid.periodEnd
            s.updatedAt = now
            state.psSubscriptions[s.id] = s
            events.append(webhooks.event("invoice.update", webhooks.invoiceData(paid, state: state)))
        case .cancel:
            guard s.status == "active" || s.status == "attention" else { throw .notFound("Subscription with code not found or already inactive") }
            s.status = "non-renewing"
            s.updatedAt = now
            state.psSubscriptions[s.id] = s
            events.append(webhooks.event("subscription.not_renew", webhooks.subscriptionData(s, state: state, includeToken: true)))
        case .resume:
            // Paystack's enable sends no webhook (there is no subscription.enable event).
            guard s.status != "active" else { throw .invalid("Subscription is already active") }
            s.status = "active"
            s.cancelledAt = nil
            if let next = s.nextPaymentDate, next <= now { s.nextPaymentDate = PaystackResources.advance(now, interval: plan.interval) }
            s.updatedAt = now
            state.psSubscriptions[s.id] = s
        case .expire:
            guard !ended else { throw .invalid("Subscription \(s.code) has already ended (status is \(s.status)).") }
            // A cancelled (non-renewing) one ends as `cancelled`; one that ran its course as `complete`.
            switch endStatus {
            case nil: s.status = s.status == "non-renewing" ? "cancelled" : "completed"
            case "cancelled": s.status = "cancelled"
            case "complete", "completed": s.status = "completed"
            case let other?: throw .invalid("status must be cancelled or complete, not \(other).")
            }
            s.cancelledAt = now
            s.openInvoice = nil
            s.updatedAt = now
            state.psSubscriptions[s.id] = s
            events.append(webhooks.event("subscription.disable", webhooks.subscriptionData(s, state: state, includeToken: true)))
        case .refund:
            guard let t = state.psTransactions.values.filter({ $0.subscriptionID == s.id && $0.status == "success" }).max(by: { $0.id < $1.id })
            else {
                throw .invalid("Subscription \(s.code) has no successful charge to refund.")
            }
            events += try refund(reference: t.reference, amount: refundAmount, state: &state)
        }
        return events
    }

    /// Refunds `amount` subunits (nil: all that is left) of a successful
    /// transaction: `refund.pending`, then `refund.processed`, each with the
    /// documented `refund.*` data (`amount` a string of this refund's
    /// subunits). Real Paystack may also send `refund.processing` in between
    /// (and `refund.failed` or `refund.needs-attention` when a refund goes
    /// wrong); the sandbox sends just these two.
    /// Refunds accumulate; the transaction stays `success` until fully
    /// refunded, then verify shows it `reversed`. More than is left answers 422.
    func refund(reference: String, amount: Int? = nil, state: inout SandboxState) throws(SandboxError) -> [OutgoingWebhook] {
        guard var t = state.psTransactions[reference] else { throw .notFound("Transaction reference not found") }
        guard t.status == "success" else {
            throw .invalid(t.status == "reversed" ? "Transaction has been fully reversed" : "Transaction has not been paid")
        }
        let left = t.amount - t.refundedAmount
        let refund = amount ?? left
        guard refund > 0 else { throw .invalid("Refund amount must be a positive number of subunits") }
        guard refund <= left else { throw .invalid("Refund amount (\(refund)) cannot be more than the \(left) left on the transaction") }
        let pending = webhooks.refund("pending", t, amount: refund, refundReference: nil, state: state)
        t.refundedAmount += refund
        if t.refundedAmount == t.amount { t.status = "reversed" }
        state.psTransactions[reference] = t
        let processed = webhooks.refund("processed", t, amount: refund, refundReference: Formatting.code("TRF_", state.next(.psRefund)), state: state)
        return [pending, processed]
    }

    /// Moves the chargeback on transaction `reference` and sends
    /// `charge.dispute.<action>` with the dispute (see ``PaystackWebhooks/disputeData(_:state:)``).
    ///
    /// - `create` opens one on a successful transaction (at most one open per
    ///   transaction): `awaiting-merchant-feedback`, `refund_amount` = `amount`
    ///   or all that is not refunded yet, due a day later.
    /// - `remind` repeats the open dispute (Paystack's reminder before it is due).
    /// - `resolve` needs an open dispute and a `resolution`: `merchant-accepted`
    ///   gives `amount` (default `refund_amount`) back to the customer, which
    ///   counts against what is left to refund and makes the transaction
    ///   `reversed` once nothing is; `declined` leaves the money with the
    ///   merchant. A resolved dispute cannot be resolved again.
    ///
    /// Every refusal answers 422 and changes nothing.
    func dispute(
        reference: String, action: DisputeAction, resolution: String?, amount: Int?, state: inout SandboxState
    ) throws(SandboxError) -> (dispute: PSDispute, events: [OutgoingWebhook]) {
        guard var t = state.psTransactions[reference] else { throw .notFound("Transaction reference not found") }
        let earlier = state.psDisputes.values.filter { $0.transactionReference == reference }.sorted { $0.id < $1.id }
        let open = earlier.last { $0.status != "resolved" }
        if action != .resolve, resolution != nil { throw .invalid("resolution is only for resolve") }
        var d: PSDispute
        switch action {
        case .create:
            if let open { throw .invalid("Transaction \(reference) already has an open dispute (\(open.id)).") }
            guard t.status == "success" else { throw .invalid("Only a successful transaction can be disputed (status is \(t.status)).") }
            let left = t.amount - t.refundedAmount
            let disputed = amount ?? left
            guard disputed <= left else { throw .invalid("The disputed amount (\(disputed)) is more than the \(left) left on the transaction.") }
            let email = t.customerID.flatMap { state.psCustomers[$0]?.email } ?? t.email
            d = PSDispute(
                id: state.next(.psDispute), transactionReference: reference, refundAmount: disputed, currency: t.currency,
                status: "awaiting-merchant-feedback", resolution: nil, dueAt: Formatting.adding(.day, 1, to: now), resolvedAt: nil,
                history: [PSDispute.Step(status: "pending", by: email, at: now)],
                messages: [PSDispute.Message(sender: email, body: "The customer disputed this charge with their bank.", at: now)],
                createdAt: now, updatedAt: now)
        case .remind:
            guard amount == nil else { throw .invalid("amount is only for create and resolve") }
            guard var current = open else { throw .invalid("Transaction \(reference) has no open dispute to remind about.") }
            current.updatedAt = now
            d = current
        case .resolve:
            guard var current = open else {
                throw .invalid(
                    earlier.last.map { "Dispute \($0.id) on transaction \(reference) is already resolved (\($0.resolution ?? ""))." }
                        ?? "Transaction \(reference) has no dispute to resolve; create one first.")
            }
            switch resolution {
            case "merchant-accepted":
                let refund = amount ?? current.refundAmount
                let left = t.amount - t.refundedAmount
                guard refund <= current.refundAmount else {
                    throw .invalid("The refund amount (\(refund)) is more than the \(current.refundAmount) disputed.")
                }
                guard refund <= left else { throw .invalid("The refund amount (\(refund)) is more than the \(left) left on the transaction.") }
                t.refundedAmount += refund
                if t.refundedAmount == t.amount { t.status = "reversed" }
                state.psTransactions[reference] = t
                current.refundAmount = refund
            case "declined":
                guard amount == nil else { throw .invalid("A declined dispute gives nothing back; amount is only for merchant-accepted.") }
            default:
                throw .invalid("resolution must be merchant-accepted or declined")
            }
            current.status = "resolved"
            current.resolution = resolution
            current.resolvedAt = now
            current.updatedAt = now
            current.history.append(PSDispute.Step(status: "resolved", by: Self.disputeDesk, at: now))
            d = current
        }
        state.psDisputes[d.id] = d
        return (d, [webhooks.event("charge.dispute.\(action.rawValue)", webhooks.disputeData(d, state: state))])
    }

    private func newInvoice(_ s: PSSubscription, periodStart: Date, periodEnd: Date, state: inout SandboxState) -> PSInvoice {
        let id = state.next(.psInvoice)
        let invoice = PSInvoice(
            id: id, code: Formatting.code("INV_", id), subscriptionID: s.id, amount: s.amount, periodStart: periodStart, periodEnd: periodEnd,
            status: "pending", paid: false, paidAt: nil, description: nil, transactionReference: nil, createdAt: now)
        state.psInvoices[id] = invoice
        return invoice
    }

    /// A renewal charges the subscription's saved authorization (same code, as a
    /// charge of an existing authorization does) and carries the plan and only
    /// Paystack's own `invoice_action` metadata, never the checkout's.
    private func renewalCharge(_ s: PSSubscription, state: inout SandboxState) -> PSTransaction {
        let n = state.next(.psTransaction)
        let reference = "sbxrenew-" + String(n)
        let email = state.psCustomers[s.customerID]?.email ?? ""
        let t = PSTransaction(
            id: n, reference: reference, accessCode: "", amount: s.amount,
            currency: resources.catalog.plans.first { $0.id == s.planID }?.currency ?? "NGN",
            email: email, planID: s.planID, callbackURL: nil, metadata: ["invoice_action": "create"], status: "success",
            createdAt: now, paidAt: now, customerID: s.customerID, subscriptionID: s.id, authorization: s.authorization)
        state.psTransactions[reference] = t
        return t
    }

    private func settle(_ invoice: PSInvoice, with t: PSTransaction, state: inout SandboxState) -> PSInvoice {
        var paid = invoice
        paid.status = "success"
        paid.paid = true
        paid.paidAt = now
        paid.description = nil
        paid.transactionReference = t.reference
        state.psInvoices[paid.id] = paid
        return paid
    }
}
