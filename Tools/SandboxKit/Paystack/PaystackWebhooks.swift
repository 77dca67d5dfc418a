import Foundation

/// Builds Paystack webhook bodies: `{"event":…,"data":{…}}` (no id, no timestamp).
struct PaystackWebhooks {
    let resources: PaystackResources

    func event(_ name: String, _ data: JSONValue) -> OutgoingWebhook {
        OutgoingWebhook(provider: .paystack, eventName: name, payload: ["event": .string(name), "data": data])
    }

    func chargeSuccess(_ t: PSTransaction, state: SandboxState) -> OutgoingWebhook {
        event("charge.success", resources.transaction(t, state: state))
    }

    /// The subscription object of `subscription.*` events; `.create` has no `email_token` (as documented).
    /// Like Paystack's, it has no `metadata`: the checkout's metadata is on `charge.success` only.
    func subscriptionData(_ s: PSSubscription, state: SandboxState, includeToken: Bool) -> JSONValue {
        let r = resources
        let plan = r.catalog.plans.first { $0.id == s.planID }
        let customer = state.psCustomers[s.customerID]
        var fields: [JSONField] = []
        func add(_ key: String, _ value: JSONValue) { fields.append(JSONField(key: key, value: value)) }
        if includeToken { add("id", .int(s.id)) }
        add("domain", "test")
        add("status", .string(s.status == "completed" ? "complete" : s.status))
        add("subscription_code", .string(s.code))
        if includeToken { add("email_token", .string(s.emailToken)) }
        add("amount", .int(s.amount))
        add("cron_expression", .string(PaystackResources.cron(interval: plan?.interval ?? "monthly", start: s.start)))
        add("next_payment_date", r.nextPayment(s))
        add("open_invoice", JSONValue(s.openInvoice))
        if includeToken { add("integration", .int(r.catalog.integration)) } else { add("createdAt", r.ts(s.createdAt)) }
        add("plan", plan.map(r.planSummary) ?? [:])
        add("authorization", r.authorization(s.authorization))
        add("customer", customer.map(r.customer) ?? [:])
        if includeToken {
            add("invoices", [])
            add("invoices_history", [])
            add("invoice_limit", 0)
            add("split_code", .null)
            add("most_recent_invoice", s.invoiceIDs.last.flatMap { state.psInvoices[$0] }.map(r.invoiceSummary) ?? .null)
        }
        add("created_at", r.ts(s.createdAt))
        return .object(fields)
    }

    func invoiceData(_ i: PSInvoice, state: SandboxState) -> JSONValue {
        let r = resources
        guard let s = state.psSubscriptions[i.subscriptionID] else { return [:] }
        let customer = state.psCustomers[s.customerID]
        let plan = r.catalog.plans.first { $0.id == s.planID }
        let transaction: JSONValue =
            i.transactionReference.flatMap { state.psTransactions[$0] }.map {
                ["reference": .string($0.reference), "status": .string($0.status), "amount": .int($0.amount), "currency": .string($0.currency)]
            } ?? [:]
        return [
            "domain": "test",
            "invoice_code": .string(i.code),
            "amount": .int(i.amount),
            "period_start": r.ts(i.periodStart),
            "period_end": r.ts(i.periodEnd),
            "status": .string(i.status),
            "paid": .bool(i.paid),
            "paid_at": r.ts(i.paidAt),
            "description": JSONValue(i.description),
            "authorization": r.authorization(s.authorization),
            "subscription": [
                "status": .string(s.status), "subscription_code": .string(s.code), "email_token": .string(s.emailToken),
                "amount": .int(s.amount), "cron_expression": .string(PaystackResources.cron(interval: plan?.interval ?? "monthly", start: s.start)),
                "next_payment_date": r.nextPayment(s), "open_invoice": JSONValue(s.openInvoice),
            ],
            "customer": customer.map(r.customer) ?? [:],
            "transaction": transaction,
            "created_at": r.ts(i.createdAt),
        ]
    }

    /// `refund.*` for a refund of `amount` subunits of `t`: `amount` is a
    /// string in the docs' examples (and `refund_reference` null until processed).
    func refund(_ status: String, _ t: PSTransaction, amount: Int, refundReference: String?, state: SandboxState) -> OutgoingWebhook {
        let customer = t.customerID.flatMap { state.psCustomers[$0] }
        return event(
            "refund.\(status)",
            [
                "status": .string(status),
                "transaction_reference": .string(t.reference),
                "refund_reference": JSONValue(refundReference),
                "amount": .string(String(amount)),
                "currency": .string(t.currency),
                "processor": "instant-transfer",
                "customer": ["first_name": .null, "last_name": .null, "email": .string(customer?.email ?? t.email)],
                "integration": .int(resources.catalog.integration),
                "domain": "test",
            ])
    }

    /// The `charge.dispute.*` data, in the docs' example shape: the dispute
    /// (`refund_amount`, `status`, `resolution`, `category: "chargeback"`,
    /// `bin`/`last4`, `dueAt`, `resolvedAt`, `history`, `messages`, …), the
    /// customer in full, and the transaction as that example shows it, with
    /// its own metadata and plan (for a subscription charge) but an empty
    /// `authorization` and a near-empty `customer`. `transaction_reference`
    /// is null there too; the reference is `transaction.reference`.
    func disputeData(_ d: PSDispute, state: SandboxState) -> JSONValue {
        let r = resources
        let t = state.psTransactions[d.transactionReference]
        let customer = t?.customerID.flatMap { state.psCustomers[$0] }
        var transaction: JSONValue = [:]
        if let t {
            let full = r.transaction(t, state: state)
            let copied = [
                "id", "domain", "status", "reference", "amount", "message", "gateway_response", "paid_at", "created_at", "channel", "currency",
                "ip_address", "metadata", "log", "fees", "fees_split",
            ]
            transaction = .object(
                copied.map { JSONField(key: $0, value: full[$0] ?? .null) } + [
                    JSONField(key: "authorization", value: [:]),
                    JSONField(key: "customer", value: ["international_format_phone": nil]),
                    JSONField(key: "plan", value: full["plan"] ?? [:]),
                    JSONField(key: "subaccount", value: [:]),
                    JSONField(key: "split", value: [:]),
                    JSONField(key: "order_id", value: nil),
                    JSONField(key: "paidAt", value: full["paidAt"] ?? .null),
                    JSONField(key: "requested_amount", value: .int(t.amount)),
                    JSONField(key: "pos_transaction_data", value: nil),
                ])
        }
        return [
            "id": .int(d.id),
            "refund_amount": .int(d.refundAmount),
            "currency": .string(d.currency),
            "status": .string(d.status),
            "resolution": JSONValue(d.resolution),
            "domain": "test",
            "transaction": transaction,
            "transaction_reference": nil,
            "category": "chargeback",
            "customer": customer.map(r.customer) ?? [:],
            "bin": JSONValue(t?.authorization?.bin),
            "last4": JSONValue(t?.authorization?.last4),
            "dueAt": r.ts(d.dueAt),
            "resolvedAt": r.ts(d.resolvedAt),
            "evidence": nil,
            "attachments": nil,
            "note": nil,
            "history": .array(d.history.map { ["status": .string($0.status), "by": .string($0.by), "createdAt": r.ts($0.at)] }),
            "messages": .array(d.messages.map { ["sender": .string($0.sender), "body": .string($0.body), "createdAt": r.ts($0.at)] }),
            "created_at": r.ts(d.createdAt),
            "updated_at": r.ts(d.updatedAt),
        ]
    }
}
