import Foundation

/// `POST /v1/invoices/create_preview` for a subscription: its next invoice, or
/// with `subscription_details[items][0][id]` and `[price]` what a price change
/// would invoice (``PriceChangeQuote``), with
/// `subscription_details[proration_behavior]` and
/// `subscription_details[proration_date]` (Unix seconds, default now).
/// Nothing is stored, nothing is sent.
extension StripeAPI {
    func createInvoicePreview(_ params: JSONValue) -> SandboxResponse {
        guard let subscriptionID = params["subscription"]?.stringValue else {
            return StripeErrors.invalid("The sandbox previews the invoices of a subscription only.", param: "subscription")
        }
        let details = params["subscription_details"]
        let proration = details?["proration_behavior"]?.stringValue ?? "create_prorations"
        guard StripeLifecycle.prorationBehaviors.contains(proration) else {
            return StripeErrors.invalid(
                "Invalid proration_behavior: must be one of always_invoice, create_prorations, or none",
                param: "subscription_details[proration_behavior]")
        }
        var date = context.clock.now()
        if let text = details?["proration_date"]?.stringValue {
            guard let seconds = TimeInterval(text) else {
                return StripeErrors.invalid("Invalid integer: \(text.prefix(20))", param: "subscription_details[proration_date]")
            }
            date = Date(timeIntervalSince1970: seconds)
        }
        let item = details?["items"]?.arrayValue
        if let item, item.count != 1 || item[0]["id"]?.stringValue == nil || item[0]["price"]?.stringValue == nil {
            return StripeErrors.invalid(
                "The sandbox previews a change of the one item: items[0][id] and items[0][price].", param: "subscription_details[items]")
        }
        let lifecycle = self.lifecycle
        let outcome: Result<JSONValue, SandboxError> = store.read { state in
            guard let s = state.stripe.subscriptions[subscriptionID] else { return .failure(.notFound("No such subscription: '\(subscriptionID)'")) }
            do throws(SandboxError) {
                let quote: PriceChangeQuote
                if let item, let itemID = item[0]["id"]?.stringValue, let price = item[0]["price"]?.stringValue {
                    quote = try lifecycle.quotePriceChange(s, itemID: itemID, priceID: price, proration: proration, at: date)
                } else {
                    quote = try lifecycle.quotePriceChange(s, itemID: s.itemID, priceID: s.priceID, proration: "none", at: date)
                }
                return .success(resources.invoicePreview(quote, subscription: s, state: state.stripe))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let invoice): return .json(200, invoice)
        case .failure(let error): return StripeErrors.from(error)
        }
    }
}

extension StripeResources {
    /// A preview invoice (no `id` to fetch it by: it is not stored), with one line per ``PriceChangeQuote/Line``.
    func invoicePreview(_ quote: PriceChangeQuote, subscription s: STSubscription, state: StripeState) -> JSONValue {
        let lines: [JSONValue] = quote.lines.enumerated().map { index, line in
            invoiceLine(line, id: "il_tmp_sbx\(index)", currency: quote.currency, subscriptionID: s.id, itemID: s.itemID)
        }
        let total = quote.total
        let created = quote.invoicedNow ? context.clock.now() : s.periodEnd
        return [
            "id": nil, "object": "invoice", "amount_due": .int(max(total, 0)), "amount_paid": 0, "amount_remaining": .int(max(total, 0)),
            "billing_reason": .string(quote.invoicedNow ? "subscription_update" : "upcoming"), "collection_method": "charge_automatically",
            "created": Self.ts(created), "currency": .string(quote.currency), "customer": .string(s.customerID),
            "customer_email": JSONValue(state.customers[s.customerID]?.email),
            "lines": Self.list(lines, hasMore: false, url: "/v1/invoices/upcoming/lines").setting("total_count", .int(lines.count)),
            "livemode": false, "next_payment_attempt": Self.ts(created),
            "parent": [
                "type": "subscription_details", "quote_details": nil,
                "subscription_details": ["metadata": .object(s.metadata), "subscription": .string(s.id)],
            ],
            "period_end": Self.ts(created), "period_start": Self.ts(created), "status": "draft", "subtotal": .int(total), "total": .int(total),
        ]
    }
}
