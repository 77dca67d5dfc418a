import Foundation

/// Renders the emulated Stripe's objects in the shapes of Stripe's API
/// reference for ``apiVersion``: ids as strings, times as Unix seconds,
/// amounts as integers of the currency's minor unit, lowercase currencies,
/// unexpanded references as ids, absent values as `null` (never left out).
struct StripeResources {
    /// The API version the sandbox renders (webhooks name it in `api_version`):
    /// the period on subscription items, the invoice's subscription under
    /// `parent.subscription_details`, no `invoice` on charges.
    static let apiVersion = "2025-03-31.basil"

    let context: SandboxContext
    var catalog: StripeCatalog { StripeCatalog.standard }

    static func ts(_ date: Date?) -> JSONValue { date.map { .int(Int($0.timeIntervalSince1970)) } ?? .null }
    static let created = ts(SandboxContext.catalogDate)

    func product(_ p: StripeCatalog.Product) -> JSONValue {
        [
            "id": .string(p.id), "object": "product", "active": .bool(p.active), "created": Self.created,
            "default_price": JSONValue(p.defaultPriceID),
            "description": JSONValue(p.description), "images": [], "livemode": false, "marketing_features": [], "metadata": [:],
            "name": .string(p.name), "package_dimensions": nil, "shippable": nil, "statement_descriptor": nil, "tax_code": nil,
            "unit_label": nil, "updated": Self.created, "url": nil,
        ]
    }

    func price(_ p: StripeCatalog.Price) -> JSONValue {
        let recurring: JSONValue =
            p.interval.map {
                [
                    "interval": .string($0), "interval_count": .int(p.intervalCount), "meter": nil, "trial_period_days": nil,
                    "usage_type": "licensed",
                ]
            } ?? .null
        return [
            "id": .string(p.id), "object": "price", "active": .bool(p.active), "billing_scheme": "per_unit", "created": Self.created,
            "currency": .string(p.currency), "custom_unit_amount": nil, "livemode": false, "lookup_key": JSONValue(p.lookupKey), "metadata": [:],
            "nickname": nil, "product": .string(p.productID), "recurring": recurring, "tax_behavior": "unspecified", "tiers_mode": nil,
            "transform_quantity": nil, "type": .string(p.isRecurring ? "recurring" : "one_time"), "unit_amount": .int(p.unitAmount),
            "unit_amount_decimal": .string(String(p.unitAmount)),
        ]
    }

    /// A list page: `{"object":"list","data":[…],"has_more":…,"url":…}`.
    static func list(_ items: [JSONValue], hasMore: Bool, url: String) -> JSONValue {
        ["object": "list", "data": .array(items), "has_more": .bool(hasMore), "url": .string(url)]
    }

    func session(_ s: STSession, state: StripeState) -> JSONValue {
        let price = catalog.price(s.priceID)
        let subtotal = (price?.unitAmount ?? 0) * s.quantity
        let trial = s.trialDays != nil
        // A trial's first invoice is free, so there is nothing to discount.
        let discount = trial ? 0 : s.amountDiscount
        let paid = s.status == "complete"
        let details: JSONValue =
            s.payerEmail.map {
                ["address": nil, "email": .string($0), "name": nil, "phone": nil, "tax_exempt": "none", "tax_ids": []]
            } ?? .null
        return [
            "id": .string(s.id), "object": "checkout.session", "amount_subtotal": .int(trial ? 0 : subtotal),
            "amount_total": .int(trial ? 0 : subtotal - discount), "allow_promotion_codes": .bool(s.allowPromotionCodes),
            "automatic_tax": ["enabled": .bool(s.automaticTax), "liability": nil, "status": s.automaticTax ? "complete" : .null],
            "discounts": s.promotionCodeID.map { [["coupon": nil, "promotion_code": .string($0)]] } ?? [], "locale": JSONValue(s.locale),
            "total_details": ["amount_discount": .int(discount), "amount_shipping": 0, "amount_tax": 0],
            "cancel_url": JSONValue(s.cancelURL), "client_reference_id": JSONValue(s.clientReferenceID), "created": Self.ts(s.createdAt),
            "currency": .string(price?.currency ?? "usd"), "customer": JSONValue(s.customerID),
            "customer_creation": .string(s.mode == "payment" ? "if_required" : "always"), "customer_details": details,
            "customer_email": JSONValue(s.customerEmail), "expires_at": Self.ts(s.expiresAt), "invoice": JSONValue(s.invoiceID), "livemode": false,
            "metadata": .object(s.metadata), "mode": .string(s.mode), "payment_intent": JSONValue(s.paymentIntentID),
            "payment_method_types": ["card"],
            "payment_status": .string(paid ? (trial ? "no_payment_required" : "paid") : "unpaid"), "status": .string(s.status),
            "subscription": JSONValue(s.subscriptionID), "success_url": .string(s.successURL), "ui_mode": "hosted",
            "url": paid ? .null : .string("\(context.publicBase)/checkout/stripe/\(s.id)"),
        ]
    }

    func subscription(_ s: STSubscription) -> JSONValue {
        let price = catalog.price(s.priceID).map(self.price) ?? .null
        let item: JSONValue = [
            "id": .string(s.itemID), "object": "subscription_item", "created": Self.ts(s.createdAt), "current_period_end": Self.ts(s.periodEnd),
            "current_period_start": Self.ts(s.periodStart), "metadata": [:], "price": price, "quantity": 1, "subscription": .string(s.id),
            "tax_rates": [],
        ]
        return [
            "id": .string(s.id), "object": "subscription", "application": nil, "billing_cycle_anchor": Self.ts(s.trialEnd ?? s.createdAt),
            "cancel_at": s.cancelAtPeriodEnd ? Self.ts(s.periodEnd) : .null, "cancel_at_period_end": .bool(s.cancelAtPeriodEnd),
            "canceled_at": Self.ts(s.canceledAt),
            "cancellation_details": ["comment": nil, "feedback": nil, "reason": s.canceledAt == nil ? .null : "cancellation_requested"],
            "collection_method": "charge_automatically", "created": Self.ts(s.createdAt),
            "currency": .string(catalog.price(s.priceID)?.currency ?? "usd"),
            "customer": .string(s.customerID), "days_until_due": nil, "default_payment_method": nil, "description": nil, "discounts": [],
            "ended_at": Self.ts(s.endedAt),
            "items": Self.list([item], hasMore: false, url: "/v1/subscription_items?subscription=\(s.id)").setting("total_count", 1),
            "latest_invoice": JSONValue(s.latestInvoiceID), "livemode": false, "metadata": .object(s.metadata), "pause_collection": nil,
            "schedule": JSONValue(s.scheduleID),
            "start_date": Self.ts(s.createdAt), "status": .string(s.status), "trial_end": Self.ts(s.trialEnd),
            "trial_settings": ["end_behavior": ["missing_payment_method": "create_invoice"]], "trial_start": Self.ts(s.trialStart),
        ]
    }

    /// One line of an invoice or a preview (API `2025-03-31.basil`: the
    /// proration flag under `parent.subscription_item_details`, the price
    /// under `pricing.price_details`).
    func invoiceLine(_ line: PriceChangeQuote.Line, id: String, currency: String, subscriptionID: String, itemID: String?) -> JSONValue {
        let price = catalog.price(line.priceID)
        return [
            "id": .string(id), "object": "line_item", "amount": .int(line.amount), "currency": .string(currency),
            "description": .string("\(line.description) \(price.flatMap { catalog.product($0.productID)?.name } ?? "Subscription")"),
            "livemode": false, "metadata": [:],
            "parent": [
                "type": "subscription_item_details",
                "subscription_item_details": [
                    "invoice_item": nil, "proration": .bool(line.proration), "proration_details": ["credited_items": nil],
                    "subscription": .string(subscriptionID), "subscription_item": JSONValue(itemID),
                ],
            ],
            "period": ["end": Self.ts(line.end), "start": Self.ts(line.start)],
            "pricing": [
                "type": "price_details", "price_details": ["price": JSONValue(price?.id), "product": JSONValue(price?.productID)],
                "unit_amount_decimal": .string(String(price?.unitAmount ?? line.amount)),
            ],
            "quantity": 1,
        ]
    }

    /// An Invoice (API `2025-03-31.basil`: no `payment_intent`, no `charge`); with
    /// `expandingPayments`, its `payments` list of InvoicePayments, the one place
    /// that names the PaymentIntent that paid it.
    func invoice(_ i: STInvoice, state: StripeState, expandingPayments: Bool = false) -> JSONValue {
        let s = state.subscriptions[i.subscriptionID]
        let price = s.flatMap { catalog.price($0.priceID) }
        let customer = state.customers[i.customerID]
        let paid = i.status == "paid"
        let single = PriceChangeQuote.Line(
            amount: i.amountDue, start: i.periodStart, end: i.periodEnd, proration: false, priceID: price?.id ?? "", description: "1 ×")
        let lines = (i.lines.isEmpty ? [single] : i.lines).enumerated().map { index, line in
            invoiceLine(
                line, id: "il_\(i.id.dropFirst(3))\(index == 0 ? "" : "_\(index)")", currency: i.currency, subscriptionID: i.subscriptionID,
                itemID: s?.itemID)
        }
        let object: JSONValue = [
            "id": .string(i.id), "object": "invoice", "account_country": "US", "amount_due": .int(i.amountDue),
            "amount_paid": .int(paid ? i.amountDue : 0), "amount_remaining": .int(paid ? 0 : i.amountDue), "attempt_count": .int(i.attemptCount),
            "attempted": .bool(i.attemptCount > 0), "billing_reason": .string(i.billingReason), "collection_method": "charge_automatically",
            "created": Self.ts(i.createdAt), "currency": .string(i.currency), "customer": .string(i.customerID),
            "customer_email": JSONValue(customer?.email), "hosted_invoice_url": .string("\(context.publicBase)/stripe/invoices/\(i.id)"),
            "lines": Self.list(lines, hasMore: false, url: "/v1/invoices/\(i.id)/lines").setting("total_count", .int(lines.count)), "livemode": false,
            "metadata": [:], "next_payment_attempt": Self.ts(i.nextPaymentAttempt), "number": .string(i.number),
            "parent": [
                "type": "subscription_details", "quote_details": nil,
                "subscription_details": ["metadata": .object(s?.metadata ?? []), "subscription": .string(i.subscriptionID)],
            ],
            "period_end": Self.ts(i.createdAt), "period_start": Self.ts(i.createdAt), "status": .string(i.status),
            "status_transitions": [
                "finalized_at": Self.ts(i.createdAt), "marked_uncollectible_at": i.status == "uncollectible" ? Self.ts(i.createdAt) : .null,
                "paid_at": Self.ts(i.paidAt), "voided_at": nil,
            ],
            "subtotal": .int(i.amountDue), "total": .int(i.amountDue),
        ]
        guard expandingPayments else { return object }
        let payments: [JSONValue] =
            i.paymentIntentID.map { pi in
                [
                    [
                        "id": .string("inpay_" + i.id.dropFirst(3)), "object": "invoice_payment", "amount_paid": paid ? .int(i.amountDue) : nil,
                        "amount_requested": .int(i.amountDue), "created": Self.ts(i.createdAt), "currency": .string(i.currency),
                        "invoice": .string(i.id), "is_default": true, "livemode": false,
                        "payment": ["type": "payment_intent", "payment_intent": .string(pi)], "status": .string(paid ? "paid" : "open"),
                        "status_transitions": ["canceled_at": nil, "paid_at": Self.ts(i.paidAt)],
                    ]
                ]
            } ?? []
        return object.setting("payments", Self.list(payments, hasMore: false, url: "/v1/invoice_payments"))
    }

    func paymentIntent(_ p: STPayment) -> JSONValue {
        [
            "id": .string(p.paymentIntentID), "object": "payment_intent", "amount": .int(p.amount),
            "amount_received": .int(p.status == "succeeded" ? p.amount : 0), "canceled_at": nil, "cancellation_reason": nil,
            "capture_method": "automatic", "client_secret": .string(p.paymentIntentID + "_secret_sandbox"), "created": Self.ts(p.createdAt),
            "currency": .string(p.currency), "customer": JSONValue(p.customerID), "description": nil,
            "last_payment_error": p.status == "succeeded"
                ? .null : ["type": "card_error", "code": "card_declined", "decline_code": "insufficient_funds"],
            "latest_charge": .string(p.chargeID), "livemode": false, "metadata": .object(p.metadata), "payment_method": "pm_card_visa",
            "payment_method_types": ["card"], "status": .string(p.status),
        ]
    }

    /// A refund object, as `POST /v1/refunds` answers it and a charge lists it.
    func refund(_ r: STRefund, of p: STPayment) -> JSONValue {
        [
            "id": .string(r.id), "object": "refund", "amount": .int(r.amount), "charge": .string(p.chargeID), "created": Self.ts(r.createdAt),
            "currency": .string(p.currency), "metadata": [:], "payment_intent": .string(p.paymentIntentID), "reason": "requested_by_customer",
            "status": "succeeded",
        ]
    }

    func charge(_ p: STPayment) -> JSONValue {
        let refunds = p.refunds.reversed().map { refund($0, of: p) }
        let succeeded = p.status == "succeeded"
        return [
            "id": .string(p.chargeID), "object": "charge", "amount": .int(p.amount), "amount_captured": .int(succeeded ? p.amount : 0),
            "amount_refunded": .int(p.amountRefunded), "balance_transaction": succeeded ? .string("txn_" + p.chargeID.dropFirst(3)) : .null,
            "billing_details": ["address": nil, "email": nil, "name": nil, "phone": nil], "captured": .bool(succeeded),
            "created": Self.ts(p.createdAt), "currency": .string(p.currency), "customer": JSONValue(p.customerID), "description": nil,
            "disputed": .bool(p.disputeID != nil), "failure_code": succeeded ? .null : "card_declined",
            "failure_message": succeeded ? .null : "Your card has insufficient funds.", "livemode": false, "metadata": .object(p.metadata),
            "outcome": [
                "network_status": "approved_by_network", "reason": nil, "risk_level": "normal", "seller_message": "Payment complete.",
                "type": "authorized",
            ],
            "paid": .bool(succeeded), "payment_intent": .string(p.paymentIntentID), "payment_method": "pm_card_visa",
            "payment_method_details": ["card": ["brand": "visa", "exp_month": 12, "exp_year": 2030, "last4": "4242"], "type": "card"],
            "receipt_url": .string("\(context.publicBase)/stripe/receipts/\(p.chargeID)"), "refunded": .bool(p.amountRefunded >= p.amount),
            "refunds": Self.list(refunds, hasMore: false, url: "/v1/charges/\(p.chargeID)/refunds").setting("total_count", .int(refunds.count)),
            "status": .string(succeeded ? "succeeded" : "failed"),
        ]
    }

    func dispute(_ d: STDispute, payment: STPayment?) -> JSONValue {
        [
            "id": .string(d.id), "object": "dispute", "amount": .int(d.amount), "balance_transactions": [], "charge": JSONValue(payment?.chargeID),
            "created": Self.ts(d.createdAt), "currency": .string(payment?.currency ?? "usd"),
            "evidence_details": [
                "due_by": Self.ts(d.createdAt.addingTimeInterval(7 * 86_400)), "has_evidence": false, "past_due": false, "submission_count": 0,
            ],
            "is_charge_refundable": false, "livemode": false, "metadata": [:], "payment_intent": .string(d.paymentIntentID),
            "payment_method_details": ["card": ["brand": "visa", "case_type": "chargeback", "network_reason_code": "10.4"], "type": "card"],
            "reason": .string(d.reason), "status": .string(d.status),
        ]
    }

    func customer(_ c: STCustomer) -> JSONValue {
        [
            "id": .string(c.id), "object": "customer", "address": nil, "balance": 0, "created": Self.ts(c.createdAt), "currency": nil,
            "delinquent": false, "description": nil, "email": .string(c.email), "invoice_prefix": nil, "livemode": false, "metadata": [:],
            "name": nil, "phone": nil, "preferred_locales": [], "tax_exempt": "none",
        ]
    }

    func portalSession(id: String, customerID: String, returnURL: String?, url: String, created: Date) -> JSONValue {
        [
            "id": .string(id), "object": "billing_portal.session", "configuration": "bpc_sandbox_default", "created": Self.ts(created),
            "customer": .string(customerID), "flow": nil, "livemode": false, "locale": nil, "on_behalf_of": nil, "return_url": JSONValue(returnURL),
            "url": .string(url),
        ]
    }
}
