import Foundation

/// Lemon Squeezy state changes (purchase and subscription lifecycle) and the
/// webhooks each one emits, in the order the sandbox sends them.
///
/// Every subscription change sends its specific event followed by
/// `subscription_updated`, the documented catch-all for any change.
struct LemonSqueezyLifecycle {
    let resources: LemonSqueezyResources
    let now: Date

    struct Purchase: Sendable {
        let orderID: Int
        let subscriptionID: Int?
        let redirectURL: String?
        let events: [OutgoingWebhook]
    }

    enum Action: String, Sendable, CaseIterable {
        case renew, paymentFailed = "payment_failed", unpaid, recover, cancel, resume, pause, unpause, expire, refund
    }

    /// Pays checkout `id`: creates the order and, for a subscription variant, the
    /// subscription and its initial invoice; emits `order_created`,
    /// `subscription_created`, `subscription_payment_success`.
    ///
    /// With `trialDays` (subscriptions only) the subscription starts with a
    /// free trial instead: the order's total is 0, the subscription is
    /// `on_trial` with `trial_ends_at` and `renews_at` at the trial's end, and
    /// no invoice exists yet, so only `order_created` and
    /// `subscription_created` are sent; `renew` ends the trial with the first
    /// charge (billing reason `initial`).
    func purchase(
        checkoutID id: String, email override: String?, name: String?, trialDays: Int? = nil, state: inout SandboxState
    ) throws(SandboxError) -> Purchase {
        guard var checkout = state.lsCheckouts[id] else { throw .notFound("No checkout \(id).") }
        if let expires = checkout.expiresAt, expires <= now { throw .invalid("This checkout expired at \(Formatting.lemonSqueezy(expires)).") }
        if checkout.paidOrderID != nil { throw .conflict("This checkout was already paid.") }
        guard let (product, variant) = resources.catalog.variant(id: checkout.variantID) else { throw .notFound("No variant \(checkout.variantID).") }
        if trialDays != nil, !variant.isSubscription {
            throw .invalid("Variant \(variant.id) is a one-time purchase; only subscriptions have free trials.")
        }
        // A variant with a free trial starts every subscription on trial (a checkout cannot change it).
        let trialEndsAt =
            trialDays.map { Formatting.adding(.day, $0, to: now) }
            ?? (variant.hasFreeTrial ? Self.advance(now, interval: variant.trialInterval ?? "day", count: variant.trialIntervalCount ?? 0) : nil)
        let email = (override?.isEmpty == false ? override! : checkout.email).trimmingCharacters(in: .whitespaces)
        guard email.contains("@"), email.count <= 254 else {
            throw .invalid("A valid email is required to pay.", pointer: "/data/attributes/checkout_data/email")
        }
        let userName =
            name.flatMap { $0.isEmpty ? nil : $0 }
            ?? (checkout.name.isEmpty ? email.split(separator: "@").first.map(String.init) ?? email : checkout.name)

        let customerID: Int
        if let existing = state.lsCustomers[email.lowercased()] {
            customerID = existing
        } else {
            customerID = state.next(.lsCustomer)
            state.lsCustomers[email.lowercased()] = customerID
        }
        let listPrice = checkout.customPrice ?? variant.price
        // A discount code lowers the first payment only (Lemon Squeezy's `duration: once`).
        let discount =
            try checkout.discountCode.map { code throws(SandboxError) in
                try resources.catalog.discount(code: code, variantID: variant.id, now: now).reduction(of: listPrice)
            } ?? 0
        let price = listPrice
        let orderID = state.next(.lsOrder)
        var order = LSOrder(
            id: orderID, identifier: Formatting.uuid(2, orderID), orderNumber: orderID, orderItemID: state.next(.lsOrderItem),
            storeID: checkout.storeID, customerID: customerID, userName: userName, userEmail: email,
            productID: product.id, variantID: variant.id, productName: product.name, variantName: variant.name,
            total: trialEndsAt == nil ? price - discount : 0, status: "paid", refunded: false, refundedAt: nil, refundedAmount: 0,
            custom: checkout.custom, testMode: checkout.testMode, createdAt: now, updatedAt: now, subscriptionID: nil,
            discountTotal: trialEndsAt == nil ? discount : 0)
        var events: [OutgoingWebhook] = []
        var subscriptionID: Int?
        if variant.isSubscription {
            let sid = state.next(.lsSubscription)
            let interval = variant.interval ?? "month"
            let count = variant.intervalCount ?? 1
            let renewsAt = trialEndsAt ?? Self.advance(now, interval: interval, count: count)
            var subscription = LSSubscription(
                id: sid, storeID: checkout.storeID, customerID: customerID, orderID: orderID, orderItemID: order.orderItemID,
                productID: product.id, variantID: variant.id, productName: product.name, variantName: variant.name,
                userName: userName, userEmail: email, status: trialEndsAt == nil ? "active" : "on_trial", cancelled: false, pauseMode: nil,
                pauseResumesAt: nil, renewsAt: renewsAt, endsAt: nil,
                billingAnchor: Formatting.components(trialEndsAt ?? now).day ?? 1, price: price, interval: interval, intervalCount: count,
                cardBrand: "visa", cardLastFour: "4242", custom: checkout.custom, subscriptionItemID: state.next(.lsSubscriptionItem),
                priceID: variant.id, testMode: checkout.testMode, createdAt: now, updatedAt: now, invoiceIDs: [], trialEndsAt: trialEndsAt)
            var invoice: LSInvoice?
            if trialEndsAt == nil {
                let paid = LSInvoice(
                    id: state.next(.lsInvoice), subscriptionID: sid, storeID: checkout.storeID, customerID: customerID, userName: userName,
                    userEmail: email, billingReason: "initial", status: "paid", total: price - discount, refunded: false, refundedAt: nil,
                    cardBrand: "visa", cardLastFour: "4242", testMode: checkout.testMode, createdAt: now, updatedAt: now, discountTotal: discount)
                subscription.invoiceIDs = [paid.id]
                state.lsInvoices[paid.id] = paid
                invoice = paid
            }
            order.subscriptionID = sid
            state.lsSubscriptions[sid] = subscription
            subscriptionID = sid
            state.lsOrders[orderID] = order
            events.append(
                LemonSqueezyWebhooks.event(
                    "order_created", data: resources.order(order), custom: order.custom, testMode: order.testMode, state: &state))
            events.append(
                LemonSqueezyWebhooks.event(
                    "subscription_created", data: resources.subscription(subscription), custom: subscription.custom, testMode: subscription.testMode,
                    state: &state))
            if let invoice {
                events.append(
                    LemonSqueezyWebhooks.event(
                        "subscription_payment_success", data: resources.invoice(invoice), custom: subscription.custom,
                        testMode: subscription.testMode, state: &state))
            }
        } else {
            state.lsOrders[orderID] = order
            events.append(
                LemonSqueezyWebhooks.event(
                    "order_created", data: resources.order(order), custom: order.custom, testMode: order.testMode, state: &state))
        }
        checkout.paidOrderID = orderID
        checkout.email = email
        state.lsCheckouts[id] = checkout
        return Purchase(orderID: orderID, subscriptionID: subscriptionID, redirectURL: checkout.redirectURL, events: events)
    }

    /// Applies `action` to subscription `id`; returns the webhooks (empty when nothing changed).
    /// - Parameter refundAmount: for `refund` only: cents to refund of the
    ///   latest paid invoice; nil refunds all that is left of it.
    func apply(
        _ action: Action, subscriptionID id: Int, pauseMode: String? = nil, resumesAt: Date? = nil, refundAmount: Int? = nil,
        state: inout SandboxState
    ) throws(SandboxError) -> [OutgoingWebhook] {
        guard var s = state.lsSubscriptions[id] else { throw .notFound("No subscription \(id).") }
        if s.status == "expired", action != .refund { throw .invalid("Subscription \(id) has expired and can no longer change.") }
        var specific: [(String, JSONValue)] = []
        switch action {
        case .cancel:
            guard !s.cancelled else { return [] }
            s.cancelled = true
            s.status = "cancelled"
            s.endsAt = s.renewsAt
            s.pauseMode = nil
            s.pauseResumesAt = nil
            specific = [("subscription_cancelled", [:])]
        case .resume:
            guard s.cancelled else { return [] }
            s.cancelled = false
            s.status = s.trialEndsAt == nil ? "active" : "on_trial"
            s.endsAt = nil
            specific = [("subscription_resumed", [:])]
        case .pause:
            guard !s.cancelled else {
                throw .invalid("A cancelled subscription cannot be paused; resume it first.", pointer: "/data/attributes/pause")
            }
            let mode = pauseMode ?? "void"
            guard mode == "void" || mode == "free" else {
                throw .invalid("The pause.mode must be void or free.", pointer: "/data/attributes/pause/mode")
            }
            s.status = "paused"
            s.pauseMode = mode
            s.pauseResumesAt = resumesAt
            specific = [("subscription_paused", [:])]
        case .unpause:
            guard s.status == "paused" else { return [] }
            s.status = s.trialEndsAt == nil ? "active" : "on_trial"
            s.pauseMode = nil
            s.pauseResumesAt = nil
            specific = [("subscription_unpaused", [:])]
        case .renew:
            // On a trial, this is the trial's end: the first charge (billing reason `initial`).
            guard s.status == "active" || s.status == "on_trial" else {
                throw .invalid("Only an active or on_trial subscription renews (status is \(s.status)); use recover for past_due.")
            }
            let invoice = newInvoice(for: s, reason: s.status == "on_trial" ? "initial" : "renewal", status: "paid", state: &state)
            s.invoiceIDs.append(invoice.id)
            s.status = "active"
            s.trialEndsAt = nil
            s.renewsAt = Self.advance(s.renewsAt, interval: s.interval, count: s.intervalCount)
            specific = [("subscription_payment_success", resources.invoice(invoice))]
        case .paymentFailed:
            // On a trial, the first charge at the trial's end fails.
            guard s.status == "active" || s.status == "on_trial" else {
                throw .invalid("Only an active or on_trial subscription can fail a charge (status is \(s.status)).")
            }
            let invoice = newInvoice(for: s, reason: s.status == "on_trial" ? "initial" : "renewal", status: "pending", state: &state)
            s.invoiceIDs.append(invoice.id)
            s.trialEndsAt = nil
            s.status = "past_due"
            // renews_at of a past_due subscription is the next retry.
            s.renewsAt = Formatting.adding(.day, 3, to: now)
            specific = [("subscription_payment_failed", resources.invoice(invoice))]
        case .unpaid:
            // The last of the dunning retries failed: the same invoice fails once more and the
            // subscription stays `unpaid` (what follows is up to the store's dunning rules).
            guard s.status == "past_due" else {
                throw .invalid("Only a past_due subscription becomes unpaid (status is \(s.status)); send payment_failed first.")
            }
            guard let openID = s.invoiceIDs.last(where: { state.lsInvoices[$0]?.status == "pending" }), let invoice = state.lsInvoices[openID] else {
                throw .invalid("Subscription \(id) has no unpaid invoice.")
            }
            s.status = "unpaid"
            specific = [("subscription_payment_failed", resources.invoice(invoice))]
        case .recover:
            guard s.status == "past_due" || s.status == "unpaid" else {
                throw .invalid("Only a past_due or unpaid subscription can recover (status is \(s.status)).")
            }
            guard let openID = s.invoiceIDs.last(where: { state.lsInvoices[$0]?.status == "pending" }), var invoice = state.lsInvoices[openID] else {
                throw .invalid("Subscription \(id) has no unpaid invoice.")
            }
            invoice.status = "paid"
            invoice.updatedAt = now
            state.lsInvoices[openID] = invoice
            s.status = "active"
            s.renewsAt = Self.advance(now, interval: s.interval, count: s.intervalCount)
            specific = [("subscription_payment_success", resources.invoice(invoice)), ("subscription_payment_recovered", resources.invoice(invoice))]
        case .expire:
            s.status = "expired"
            s.endsAt = s.endsAt ?? now
            s.pauseMode = nil
            s.pauseResumesAt = nil
            specific = [("subscription_expired", [:])]
        case .refund:
            // The latest invoice with money left on it; the initial one was paid
            // through the order, so refunding it refunds the order (and the
            // order refund carries on to the invoice).
            guard let paidID = s.invoiceIDs.last(where: { state.lsInvoices[$0].map(Self.isRefundable) ?? false }),
                let invoice = state.lsInvoices[paidID]
            else {
                throw .invalid("Subscription \(id) has no paid invoice to refund.")
            }
            if invoice.billingReason == "initial", let order = state.lsOrders[s.orderID], order.total > 0 {
                return try refundOrder(s.orderID, amount: refundAmount, state: &state)
            }
            return try refundInvoice(paidID, amount: refundAmount, state: &state)
        }
        s.updatedAt = now
        state.lsSubscriptions[id] = s
        let subscriptionJSON = resources.subscription(s)
        var events: [OutgoingWebhook] = specific.map { name, data in
            LemonSqueezyWebhooks.event(name, data: data == [:] ? subscriptionJSON : data, custom: s.custom, testMode: s.testMode, state: &state)
        }
        events.append(
            LemonSqueezyWebhooks.event("subscription_updated", data: subscriptionJSON, custom: s.custom, testMode: s.testMode, state: &state))
        return events
    }

    /// Changes the plan of subscription `id` (PATCH `variant_id`); emits
    /// `subscription_updated`, and `subscription_payment_success` when money is taken now.
    ///
    /// As Lemon Squeezy documents it: prorated by default (the unused time is
    /// credited and the difference charged at the next renewal);
    /// `invoice_immediately` charges the prorated difference now (an invoice
    /// with billing reason `updated`); `disable_prorations` charges the new
    /// price from the next renewal and overrides `invoice_immediately`. A
    /// change of billing interval starts a new period now and charges the new
    /// price (less the credit, unless prorations are disabled) at once.
    func changeVariant(
        subscriptionID id: Int, variantID: Int, invoiceImmediately: Bool = false, disableProrations: Bool = false, state: inout SandboxState
    ) throws(SandboxError) -> [OutgoingWebhook] {
        guard var s = state.lsSubscriptions[id] else { throw .notFound("No subscription \(id).") }
        guard let (product, variant) = resources.catalog.variant(id: variantID), variant.isSubscription else {
            throw .invalid("The selected variant id is invalid.", pointer: "/data/attributes/variant_id")
        }
        guard s.status != "expired" else { throw .invalid("Subscription \(id) has expired and can no longer change.") }
        let newInterval = variant.interval ?? "month", newCount = variant.intervalCount ?? 1
        let periodStart = Self.advance(s.renewsAt, interval: s.interval, count: -s.intervalCount)
        let length = s.renewsAt.timeIntervalSince(periodStart)
        let unused = length > 0 ? min(max(s.renewsAt.timeIntervalSince(now) / length, 0), 1) : 0
        let credit = disableProrations ? 0 : Int((Double(s.price) * unused).rounded())
        var charge: Int?
        if newInterval != s.interval || newCount != s.intervalCount {
            s.renewsAt = Self.advance(now, interval: newInterval, count: newCount)
            charge = max(variant.price - credit, 0)
        } else if invoiceImmediately && !disableProrations {
            charge = max(Int((Double(variant.price) * unused).rounded()) - credit, 0)
        }
        s.productID = product.id
        s.variantID = variant.id
        s.productName = product.name
        s.variantName = variant.name
        s.price = variant.price
        s.interval = newInterval
        s.intervalCount = newCount
        s.updatedAt = now
        var events = [(String, JSONValue)]()
        if let charge, charge > 0 {
            let invoice = newInvoice(for: s, reason: "updated", status: "paid", total: charge, state: &state)
            s.invoiceIDs.append(invoice.id)
            events.append(("subscription_payment_success", resources.invoice(invoice)))
        }
        state.lsSubscriptions[id] = s
        var webhooks = [
            LemonSqueezyWebhooks.event("subscription_updated", data: resources.subscription(s), custom: s.custom, testMode: s.testMode, state: &state)
        ]
        for (name, data) in events {
            webhooks.append(LemonSqueezyWebhooks.event(name, data: data, custom: s.custom, testMode: s.testMode, state: &state))
        }
        return webhooks
    }

    /// Refunds `amount` cents of order `id` (nil: all that is left).
    ///
    /// Lemon Squeezy sends `order_refunded` for full and partial refunds
    /// alike. `refunded_amount` is the running total of the refunds, `status`
    /// is `partial_refund` while money is left and `refunded` once none is,
    /// and `refunded` turns true only then (the docs' partial-refund example
    /// shows `refunded: false` next to a `refunded_amount`); `refunded_at` is
    /// the time of the latest refund. When the order paid a subscription's
    /// initial invoice, that invoice is refunded by the same amount
    /// (`subscription_payment_refunded`). More than is left answers 422.
    func refundOrder(_ id: Int, amount: Int? = nil, state: inout SandboxState) throws(SandboxError) -> [OutgoingWebhook] {
        guard var order = state.lsOrders[id] else { throw .notFound("No order \(id).") }
        let refund = try Self.refund(amount, total: order.total, alreadyRefunded: order.refundedAmount, of: "Order \(id)")
        // Checked before anything changes: a throw must leave the state as it was.
        let initialID = order.subscriptionID.flatMap { state.lsSubscriptions[$0]?.invoiceIDs.first }.flatMap { invoiceID in
            state.lsInvoices[invoiceID].flatMap { $0.billingReason == "initial" && Self.isRefundable($0) ? invoiceID : nil }
        }
        if let initialID, let invoice = state.lsInvoices[initialID] {
            _ = try Self.refund(refund, total: invoice.total, alreadyRefunded: invoice.refundedAmount, of: "Subscription invoice \(initialID)")
        }
        order.refundedAmount += refund
        order.refunded = order.refundedAmount == order.total
        order.status = order.refunded ? "refunded" : "partial_refund"
        order.refundedAt = now
        order.updatedAt = now
        state.lsOrders[id] = order
        var events = [
            LemonSqueezyWebhooks.event("order_refunded", data: resources.order(order), custom: order.custom, testMode: order.testMode, state: &state)
        ]
        if let initialID { events += try refundInvoice(initialID, amount: refund, state: &state) }
        return events
    }

    /// `POST /v1/subscription-invoices/{id}/refund`: an initial invoice was
    /// paid through its order, so it is refunded through the order (both
    /// webhooks follow, as for the dashboard's refund); a renewal's directly.
    func refundInvoiceByAPI(_ id: Int, amount: Int?, state: inout SandboxState) throws(SandboxError) -> [OutgoingWebhook] {
        guard let invoice = state.lsInvoices[id] else { throw .notFound("No subscription invoice \(id).") }
        if invoice.billingReason == "initial", let subscription = state.lsSubscriptions[invoice.subscriptionID],
            let order = state.lsOrders[subscription.orderID], order.total > 0, Self.isRefundable(invoice)
        {
            return try refundOrder(subscription.orderID, amount: amount, state: &state)
        }
        return try refundInvoice(id, amount: amount, state: &state)
    }

    /// Refunds `amount` cents of subscription invoice `id` (nil: all that is
    /// left): `status` `partial_refunded` or `refunded`, `refunded_amount` the
    /// running total; sends `subscription_payment_refunded`.
    private func refundInvoice(_ id: Int, amount: Int?, state: inout SandboxState) throws(SandboxError) -> [OutgoingWebhook] {
        guard var invoice = state.lsInvoices[id] else { throw .notFound("No subscription invoice \(id).") }
        guard Self.isRefundable(invoice) else { throw .invalid("Subscription invoice \(id) is \(invoice.status) and cannot be refunded.") }
        let refund = try Self.refund(amount, total: invoice.total, alreadyRefunded: invoice.refundedAmount, of: "Subscription invoice \(id)")
        invoice.refundedAmount += refund
        invoice.refunded = invoice.refundedAmount == invoice.total
        invoice.status = invoice.refunded ? "refunded" : "partial_refunded"
        invoice.refundedAt = now
        invoice.updatedAt = now
        state.lsInvoices[id] = invoice
        let subscription = state.lsSubscriptions[invoice.subscriptionID]
        return [
            LemonSqueezyWebhooks.event(
                "subscription_payment_refunded", data: resources.invoice(invoice), custom: subscription?.custom, testMode: invoice.testMode,
                state: &state)
        ]
    }

    /// A paid invoice with money left to refund.
    static func isRefundable(_ invoice: LSInvoice) -> Bool {
        (invoice.status == "paid" || invoice.status == "partial_refunded") && invoice.refundedAmount < invoice.total
    }

    /// The cents a refund takes: `requested`, or all that is left when nil.
    static func refund(_ requested: Int?, total: Int, alreadyRefunded: Int, of what: String) throws(SandboxError) -> Int {
        let left = total - alreadyRefunded
        guard left > 0 else {
            throw .invalid(total == 0 ? "\(what) was free; there is nothing to refund." : "\(what) is already fully refunded.")
        }
        guard let requested else { return left }
        guard requested > 0 else { throw .invalid("The refund amount must be a positive number of cents.") }
        guard requested <= left else {
            throw .invalid("The refund amount (\(requested)) is more than the \(left) cents left to refund on \(what).")
        }
        return requested
    }

    private func newInvoice(for s: LSSubscription, reason: String, status: String, total: Int? = nil, state: inout SandboxState) -> LSInvoice {
        let invoice = LSInvoice(
            id: state.next(.lsInvoice), subscriptionID: s.id, storeID: s.storeID, customerID: s.customerID, userName: s.userName,
            userEmail: s.userEmail, billingReason: reason, status: status, total: total ?? s.price, refunded: false, refundedAt: nil,
            cardBrand: s.cardBrand, cardLastFour: s.cardLastFour, testMode: s.testMode, createdAt: now, updatedAt: now)
        state.lsInvoices[invoice.id] = invoice
        return invoice
    }

    static func advance(_ date: Date, interval: String, count: Int) -> Date {
        switch interval {
        case "day": Formatting.adding(.day, count, to: date)
        case "week": Formatting.adding(.day, 7 * count, to: date)
        case "year": Formatting.adding(.year, count, to: date)
        default: Formatting.adding(.month, count, to: date)
        }
    }
}
