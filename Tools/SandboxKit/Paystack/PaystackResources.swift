import Foundation

/// Builds Paystack objects with the fields of the docs' examples.
struct PaystackResources {
    let context: SandboxContext
    var catalog: PaystackCatalog { context.catalog.paystack }

    func ts(_ date: Date) -> JSONValue { .string(Formatting.paystack(date)) }
    func ts(_ date: Date?) -> JSONValue { date.map { ts($0) } ?? .null }
    var catalogDate: JSONValue { ts(SandboxContext.catalogDate) }

    /// The envelope: `{"status":true,"message":…,"data":…}` plus `meta` for lists.
    func envelope(_ message: String, data: JSONValue? = nil, meta: JSONValue? = nil) -> JSONValue {
        var body: JSONValue = ["status": true, "message": .string(message)]
        if let data { body = body.setting("data", data) }
        if let meta { body = body.setting("meta", meta) }
        return body
    }

    func ok(_ message: String, data: JSONValue? = nil, meta: JSONValue? = nil, status: Int = 200) -> SandboxResponse {
        .json(status, envelope(message, data: data, meta: meta))
    }

    func listMeta(_ window: PageWindow) -> JSONValue {
        [
            "total": .int(window.total), "skipped": .int(window.range.lowerBound), "perPage": .int(window.size), "page": .int(window.number),
            "pageCount": .int(window.lastPage),
        ]
    }

    func plan(_ p: PaystackCatalog.Plan, subscriptions: [JSONValue]) -> JSONValue {
        [
            "subscriptions": .array(subscriptions),
            "integration": .int(catalog.integration),
            "domain": "test",
            "name": .string(p.name),
            "plan_code": .string(p.planCode),
            "description": JSONValue(p.description),
            "amount": .int(p.amount),
            "interval": .string(p.interval),
            "send_invoices": true,
            "send_sms": true,
            "hosted_page": false,
            "hosted_page_url": .null,
            "hosted_page_summary": .null,
            "currency": .string(p.currency),
            "migrate": .null,
            "id": .int(p.id),
            "createdAt": catalogDate,
            "updatedAt": catalogDate,
        ]
    }

    /// The short plan object embedded in webhooks.
    func planSummary(_ p: PaystackCatalog.Plan) -> JSONValue {
        [
            "id": .int(p.id), "name": .string(p.name), "plan_code": .string(p.planCode), "description": JSONValue(p.description),
            "amount": .int(p.amount), "interval": .string(p.interval), "send_invoices": true, "send_sms": true, "currency": .string(p.currency),
        ]
    }

    func authorization(_ a: PSAuthorization?) -> JSONValue {
        guard let a else { return [:] }
        return [
            "authorization_code": .string(a.code), "bin": .string(a.bin), "last4": .string(a.last4),
            "exp_month": .string(a.expMonth), "exp_year": .string(a.expYear), "channel": "card",
            "card_type": "visa ", "bank": "TEST BANK", "country_code": "NG", "brand": .string(a.brand),
            "reusable": true, "signature": .string(a.signature), "account_name": .null,
        ]
    }

    func customer(_ c: PSCustomer) -> JSONValue {
        [
            "id": .int(c.id), "first_name": .null, "last_name": .null, "email": .string(c.email), "customer_code": .string(c.code),
            "phone": .null, "metadata": .null, "risk_action": "default", "international_format_phone": .null,
        ]
    }

    /// The customer's saved authorizations: one per paid checkout, oldest first.
    func authorizations(of c: PSCustomer, state: SandboxState) -> [PSAuthorization] {
        var seen: Set<String> = []
        return state.psTransactions.values.filter { $0.customerID == c.id }.sorted { $0.id < $1.id }
            .compactMap(\.authorization).filter { seen.insert($0.code).inserted }
    }

    func customerDetail(_ c: PSCustomer, state: SandboxState) -> JSONValue {
        let subscriptions = state.psSubscriptions.values.filter { $0.customerID == c.id }.sorted { $0.id < $1.id }
        let transactions = state.psTransactions.values.filter { $0.customerID == c.id && $0.status != "abandoned" }.sorted { $0.id < $1.id }
        return [
            "transactions": .array(
                transactions.map {
                    [
                        "id": .int($0.id), "reference": .string($0.reference), "amount": .int($0.amount), "status": .string($0.status),
                        "currency": .string($0.currency),
                    ]
                }),
            "subscriptions": .array(
                subscriptions.map {
                    ["id": .int($0.id), "subscription_code": .string($0.code), "status": .string($0.status), "amount": .int($0.amount)]
                }),
            "authorizations": .array(authorizations(of: c, state: state).map(authorization)),
            "first_name": .null, "last_name": .null, "email": .string(c.email), "phone": .null, "metadata": .null,
            "domain": "test", "customer_code": .string(c.code), "risk_action": "default", "id": .int(c.id),
            "integration": .int(catalog.integration), "createdAt": ts(c.createdAt), "updatedAt": ts(c.updatedAt),
            "created_at": ts(c.createdAt), "updated_at": ts(c.updatedAt),
            "total_transactions": .int(transactions.count), "total_transaction_value": [], "dedicated_account": .null,
            "identified": false, "identifications": .null,
        ]
    }

    /// The transaction as verify returns it and `charge.success` carries it.
    func transaction(_ t: PSTransaction, state: SandboxState) -> JSONValue {
        let paid = t.status == "success" || t.status == "reversed"
        let customer = t.customerID.flatMap { state.psCustomers[$0] }
        let plan = t.planID.flatMap { id in catalog.plans.first { $0.id == id } }
        return [
            "id": .int(t.id),
            "domain": "test",
            "status": .string(t.status),
            "reference": .string(t.reference),
            "receipt_number": .null,
            "amount": .int(t.amount),
            "message": .null,
            "gateway_response": .string(paid ? "Successful" : "The transaction was not completed"),
            "paid_at": ts(t.paidAt),
            "created_at": ts(t.createdAt),
            "channel": "card",
            "currency": .string(t.currency),
            "ip_address": "127.0.0.1",
            "metadata": t.metadata,
            "log": .null,
            "fees": paid ? .int(min(200_000, t.amount * 15 / 1000)) : .null,
            "fees_split": .null,
            "authorization": authorization(paid ? t.authorization : nil),
            "customer": customer.map(self.customer) ?? ["id": .null, "email": .string(t.email)],
            "plan": plan.map(planSummary) ?? [:],
            "split": [:],
            "order_id": .null,
            "paidAt": ts(t.paidAt),
            "createdAt": ts(t.createdAt),
            "requested_amount": .int(t.amount),
            "pos_transaction_data": .null,
            "source": .null,
            "fees_breakdown": .null,
            "transaction_date": ts(t.createdAt),
            "plan_object": plan.map(planSummary) ?? [:],
            "subaccount": [:],
        ]
    }

    static func cron(interval: String, start: Date) -> String {
        let c = Formatting.components(start)
        switch interval {
        case "hourly": return "0 * * * *"
        case "daily": return "0 0 * * *"
        case "weekly": return "0 0 * * \((c.weekday ?? 1) - 1)"
        case "annually": return "0 0 \(min(c.day ?? 1, 28)) \(c.month ?? 1) *"
        default: return "0 0 \(min(c.day ?? 1, 28)) * *"
        }
    }

    static func advance(_ date: Date, interval: String) -> Date {
        switch interval {
        case "hourly": Formatting.adding(.hour, 1, to: date)
        case "daily": Formatting.adding(.day, 1, to: date)
        case "weekly": Formatting.adding(.day, 7, to: date)
        case "quarterly": Formatting.adding(.month, 3, to: date)
        case "biannually": Formatting.adding(.month, 6, to: date)
        case "annually": Formatting.adding(.year, 1, to: date)
        default: Formatting.adding(.month, 1, to: date)
        }
    }

    /// `next_payment_date` as Paystack shows it: null once the subscription will not renew.
    func nextPayment(_ s: PSSubscription) -> JSONValue {
        s.status == "active" || s.status == "attention" ? ts(s.nextPaymentDate) : .null
    }

    func invoiceSummary(_ i: PSInvoice) -> JSONValue {
        [
            "invoice_code": .string(i.code), "amount": .int(i.amount), "status": .string(i.status), "paid": .bool(i.paid), "paid_at": ts(i.paidAt),
            "period_start": ts(i.periodStart), "period_end": ts(i.periodEnd), "created_at": ts(i.createdAt),
        ]
    }

    /// The subscription as fetch and list return it.
    func subscription(_ s: PSSubscription, state: SandboxState) -> JSONValue {
        let plan = catalog.plans.first { $0.id == s.planID }
        let customer = state.psCustomers[s.customerID]
        let invoices = s.invoiceIDs.compactMap { state.psInvoices[$0] }
        return [
            "invoices": .array(invoices.map(invoiceSummary)),
            "customer": customer.map(self.customer) ?? .null,
            "plan": plan.map { self.plan($0, subscriptions: []).setting("subscriptions", .null) } ?? .null,
            "integration": .int(catalog.integration),
            "authorization": authorization(s.authorization),
            "domain": "test",
            "start": .int(Int(s.start.timeIntervalSince1970)),
            "status": .string(s.status),
            "quantity": 1,
            "amount": .int(s.amount),
            "subscription_code": .string(s.code),
            "email_token": .string(s.emailToken),
            "easy_cron_id": .null,
            "cron_expression": .string(Self.cron(interval: plan?.interval ?? "monthly", start: s.start)),
            "next_payment_date": nextPayment(s),
            "open_invoice": JSONValue(s.openInvoice),
            "invoice_limit": 0,
            "split_code": .null,
            "most_recent_invoice": invoices.last.map(invoiceSummary) ?? .null,
            "payments_count": .int(s.paymentsCount),
            "cancelledAt": ts(s.cancelledAt),
            "id": .int(s.id),
            "createdAt": ts(s.createdAt),
            "updatedAt": ts(s.updatedAt),
        ]
    }

    /// The short form embedded in plans' `subscriptions` arrays.
    func subscriptionInPlan(_ s: PSSubscription, state: SandboxState) -> JSONValue {
        let plan = catalog.plans.first { $0.id == s.planID }
        return [
            "customer": .int(s.customerID), "plan": .int(s.planID), "integration": .int(catalog.integration), "domain": "test",
            "start": .int(Int(s.start.timeIntervalSince1970)), "status": .string(s.status), "quantity": 1, "amount": .int(s.amount),
            "subscription_code": .string(s.code), "email_token": .string(s.emailToken),
            "authorization": authorization(s.authorization), "easy_cron_id": .null,
            "cron_expression": .string(Self.cron(interval: plan?.interval ?? "monthly", start: s.start)),
            "next_payment_date": nextPayment(s), "open_invoice": JSONValue(s.openInvoice), "id": .int(s.id),
            "createdAt": ts(s.createdAt), "updatedAt": ts(s.updatedAt),
        ]
    }
}
