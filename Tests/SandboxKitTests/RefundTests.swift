import Testing
@testable import SandboxKit

/// Full and partial refunds through the `/_sandbox` refund controls: the
/// webhooks each provider documents, running totals, and the API objects.
@Suite struct RefundTests {
    /// Buys one-time variant 1 ($9.99) and returns the order id.
    func lsOrder(_ h: Harness) async throws -> Int {
        let checkout = try #require(await h.lsCheckout(variant: 1))
        return try #require(await h.control("POST", "/checkouts/lemonsqueezy/\(checkout)/pay").json?["order_id"]?.intValue)
    }

    @Test func lemonSqueezyPartialOrderRefundsAccumulateUntilFull() async throws {
        let h = Harness()
        let orderID = try await lsOrder(h)
        var mark = await h.mark()

        let first = await h.control("POST", "/lemonsqueezy/orders/\(orderID)/refund", body: ["amount": 300])
        #expect(first.status == 200)
        #expect(first.json?["events"] == ["order_refunded"])
        let sent = try #require(await h.delivered(after: mark).first)
        #expect(sent.header("X-Event-Name") == "order_refunded")
        #expect(sent.json["meta"]?["custom_data"] == ["user_id": "42"])
        let partial = try #require(sent.json["data"]?["attributes"])
        #expect(partial["status"]?.stringValue == "partial_refund")
        #expect(partial["status_formatted"]?.stringValue == "Partial refund")
        #expect(partial["refunded"] == .bool(false))
        #expect(partial["refunded_amount"]?.intValue == 300)
        #expect(partial["refunded_amount_usd"]?.intValue == 300)
        #expect(partial["refunded_amount_formatted"]?.stringValue == "$3.00")
        #expect(partial["refunded_at"]?.stringValue == "2025-06-15T15:06:40.000000Z")
        #expect(partial["total"]?.intValue == 999)
        let fetched = try #require(await h.ls("GET", "/orders/\(orderID)").json?["data"]?["attributes"])
        #expect(fetched["status"]?.stringValue == "partial_refund")
        #expect(fetched["refunded_amount"]?.intValue == 300)

        h.clock.advance(days: 1)
        mark = await h.mark()
        #expect(await h.control("POST", "/lemonsqueezy/orders/\(orderID)/refund", body: ["amount": 500]).json?["events"] == ["order_refunded"])
        let second = try #require(await h.delivered(after: mark).first?.json["data"]?["attributes"])
        #expect(second["refunded_amount"]?.intValue == 800) // the running total, not this refund
        #expect(second["status"]?.stringValue == "partial_refund")
        #expect(second["refunded_at"]?.stringValue == "2025-06-16T15:06:40.000000Z")

        // 199 left: more is refused and changes nothing; so are amounts that are not positive integers.
        mark = await h.mark()
        let over = await h.control("POST", "/lemonsqueezy/orders/\(orderID)/refund", body: ["amount": 200])
        #expect(over.status == 422)
        #expect(over.json?["error"]?.stringValue?.contains("199") == true)
        for bad: JSONValue in [0, -5, "lots", 1.5] {
            #expect(await h.control("POST", "/lemonsqueezy/orders/\(orderID)/refund", body: ["amount": bad]).status == 422, "\(bad)")
        }
        #expect(await h.delivered(after: mark).isEmpty)
        #expect(await h.ls("GET", "/orders/\(orderID)").json?["data"]?["attributes"]?["refunded_amount"]?.intValue == 800)

        // No amount: the rest.
        #expect(await h.control("POST", "/lemonsqueezy/orders/\(orderID)/refund").json?["events"] == ["order_refunded"])
        let full = try #require(await h.delivered(after: mark).first?.json["data"]?["attributes"])
        #expect(full["status"]?.stringValue == "refunded")
        #expect(full["refunded"] == .bool(true))
        #expect(full["refunded_amount"]?.intValue == 999)
        let after = try #require(await h.ls("GET", "/orders/\(orderID)").json?["data"]?["attributes"])
        #expect(after["status"]?.stringValue == "refunded")
        #expect(after["refunded"] == .bool(true))
        #expect(after["refunded_amount"]?.intValue == 999)
        #expect(await h.control("POST", "/lemonsqueezy/orders/\(orderID)/refund", body: ["amount": 1]).status == 422)
    }

    @Test func lemonSqueezySubscriptionRefundsTheLatestInvoiceInPartsThenTheOrder() async throws {
        let h = Harness()
        let id = try #require(await h.lsSubscribe())
        var mark = await h.mark()
        _ = await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/renew")
        let renewal = try #require(await h.delivered(after: mark).first { $0.lsEvent == "subscription_payment_success" }?.json["data"])
        let renewalID = try #require(renewal["id"]?.stringValue)
        #expect(renewal["attributes"]?["billing_reason"]?.stringValue == "renewal")
        mark = await h.mark()

        let partial = await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/refund", body: ["amount": 100])
        #expect(partial.json?["events"] == ["subscription_payment_refunded"])
        let refunded = try #require(await h.delivered(after: mark).first)
        #expect(refunded.json["data"]?["type"]?.stringValue == "subscription-invoices")
        #expect(refunded.json["data"]?["id"]?.stringValue == renewalID)
        #expect(refunded.json["meta"]?["custom_data"] == ["user_id": "42"])
        let attributes = try #require(refunded.json["data"]?["attributes"])
        #expect(attributes["status"]?.stringValue == "partial_refunded")
        #expect(attributes["refunded"] == .bool(false))
        #expect(attributes["refunded_amount"]?.intValue == 100)
        #expect(attributes["refunded_at"]?.stringValue == "2025-06-15T15:06:40.000000Z")
        let fetched = try #require(await h.ls("GET", "/subscription-invoices/\(renewalID)").json?["data"]?["attributes"])
        #expect(fetched["status"]?.stringValue == "partial_refunded")
        #expect(fetched["refunded_amount"]?.intValue == 100)
        #expect(fetched["refunded_amount_formatted"]?.stringValue == "$1.00")

        #expect(await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/refund", body: ["amount": 400]).status == 422) // 399 left
        // The rest of the renewal; the order (which paid the initial invoice) is untouched.
        #expect(await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/refund").json?["events"] == ["subscription_payment_refunded"])
        let full = try #require(await h.ls("GET", "/subscription-invoices/\(renewalID)").json?["data"]?["attributes"])
        #expect(full["status"]?.stringValue == "refunded")
        #expect(full["refunded"] == .bool(true))
        #expect(full["refunded_amount"]?.intValue == 499)
        #expect(await h.ls("GET", "/orders/1").json?["data"]?["attributes"]?["status"]?.stringValue == "paid")

        // Next in line is the initial invoice, paid through the order: both get the same partial refund.
        mark = await h.mark()
        let initial = await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/refund", body: ["amount": 200])
        #expect(initial.json?["events"] == ["order_refunded", "subscription_payment_refunded"])
        let sent = await h.delivered(after: mark)
        #expect(sent.first?.json["data"]?["attributes"]?["status"]?.stringValue == "partial_refund")
        #expect(sent.first?.json["data"]?["attributes"]?["refunded_amount"]?.intValue == 200)
        #expect(sent.last?.json["data"]?["attributes"]?["billing_reason"]?.stringValue == "initial")
        #expect(sent.last?.json["data"]?["attributes"]?["status"]?.stringValue == "partial_refunded")
        #expect(sent.last?.json["data"]?["attributes"]?["refunded_amount"]?.intValue == 200)
        #expect(await h.control("POST", "/lemonsqueezy/orders/1/refund", body: ["amount": 300]).status == 422) // 299 left
        #expect(await h.control("POST", "/lemonsqueezy/orders/1/refund").json?["events"] == ["order_refunded", "subscription_payment_refunded"])
        let invoiceID = try #require(sent.last?.json["data"]?["id"]?.stringValue)
        #expect(await h.ls("GET", "/subscription-invoices/\(invoiceID)").json?["data"]?["attributes"]?["status"]?.stringValue == "refunded")
        #expect(await h.ls("GET", "/orders/1").json?["data"]?["attributes"]?["refunded_amount"]?.intValue == 499)
        #expect(await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/refund").status == 422) // nothing paid is left
    }

    @Test func paystackPartialRefundsSendPendingThenProcessedWithStringAmounts() async throws {
        let h = Harness()
        let (reference, _) = try #require(await h.psSubscribe()) // ₦2,500.00 = 250000 kobo
        var mark = await h.mark()

        let first = await h.control("POST", "/paystack/transactions/\(reference)/refund", body: ["amount": 100_000])
        #expect(first.json?["events"] == ["refund.pending", "refund.processed"])
        let sent = await h.delivered(after: mark)
        #expect(sent.map(\.psEvent) == ["refund.pending", "refund.processed"])
        let pending = try #require(sent.first?.json["data"])
        let processed = try #require(sent.last?.json["data"])
        let documented: Set<String> = [
            "status", "transaction_reference", "refund_reference", "amount", "currency", "processor", "customer", "integration", "domain",
        ]
        #expect(Set(pending.objectValue?.map(\.key) ?? []) == documented)
        #expect(Set(processed.objectValue?.map(\.key) ?? []) == documented)
        #expect(pending["status"]?.stringValue == "pending")
        #expect(pending["refund_reference"] == .null)
        #expect(pending["amount"] == .string("100000")) // a string of subunits, as documented
        #expect(processed["status"]?.stringValue == "processed")
        #expect(processed["amount"] == .string("100000"))
        #expect(processed["transaction_reference"]?.stringValue == reference)
        #expect(processed["currency"]?.stringValue == "NGN")
        #expect(processed["customer"] == ["first_name": nil, "last_name": nil, "email": "payer@example.com"])
        #expect(processed["integration"]?.intValue == 100_032)
        #expect(processed["domain"]?.stringValue == "test")
        let firstRefund = try #require(processed["refund_reference"]?.stringValue)
        #expect(firstRefund.hasPrefix("TRF_"))
        #expect(await h.ps("GET", "/transaction/verify/\(reference)").json?["data"]?["status"]?.stringValue == "success")

        mark = await h.mark()
        #expect(await h.control("POST", "/paystack/transactions/\(reference)/refund", body: ["amount": "100000"]).status == 200)
        let second = try #require(await h.delivered(after: mark).last?.json["data"])
        #expect(second["amount"] == .string("100000"))
        #expect(second["refund_reference"]?.stringValue != firstRefund) // one reference per refund
        #expect(await h.ps("GET", "/transaction/verify/\(reference)").json?["data"]?["status"]?.stringValue == "success")

        // 50000 left.
        mark = await h.mark()
        let over = await h.control("POST", "/paystack/transactions/\(reference)/refund", body: ["amount": 50_001])
        #expect(over.status == 422)
        #expect(over.json?["error"]?.stringValue?.contains("50000") == true)
        #expect(await h.control("POST", "/paystack/transactions/\(reference)/refund", body: ["amount": 0]).status == 422)
        #expect(await h.delivered(after: mark).isEmpty)

        #expect(await h.control("POST", "/paystack/transactions/\(reference)/refund").json?["events"] == ["refund.pending", "refund.processed"])
        #expect(await h.delivered(after: mark).last?.json["data"]?["amount"] == .string("50000"))
        #expect(await h.ps("GET", "/transaction/verify/\(reference)").json?["data"]?["status"]?.stringValue == "reversed")
        #expect(await h.control("POST", "/paystack/transactions/\(reference)/refund", body: ["amount": 1]).status == 422)
    }

    @Test func paystackSubscriptionRefundTakesAnAmountFromTheLatestCharge() async throws {
        let h = Harness()
        let (reference, code) = try #require(await h.psSubscribe())
        var mark = await h.mark()
        _ = await h.control("POST", "/paystack/subscriptions/\(code)/renew")
        let renewal = try #require(await h.delivered(after: mark).first { $0.psEvent == "charge.success" }?.json["data"]?["reference"]?.stringValue)
        mark = await h.mark()

        let refund = await h.control("POST", "/paystack/subscriptions/\(code)/refund", body: ["amount": 1000])
        #expect(refund.json?["events"] == ["refund.pending", "refund.processed"])
        let processed = try #require(await h.delivered(after: mark).last?.json["data"])
        #expect(processed["transaction_reference"]?.stringValue == renewal)
        #expect(processed["amount"] == .string("1000"))
        #expect(await h.ps("GET", "/transaction/verify/\(renewal)").json?["data"]?["status"]?.stringValue == "success")
        #expect(await h.control("POST", "/paystack/subscriptions/\(code)/refund", body: ["amount": 250_000]).status == 422) // 249000 left
        // The rest of the renewal, then the first charge is next.
        _ = await h.control("POST", "/paystack/subscriptions/\(code)/refund")
        #expect(await h.ps("GET", "/transaction/verify/\(renewal)").json?["data"]?["status"]?.stringValue == "reversed")
        mark = await h.mark()
        _ = await h.control("POST", "/paystack/subscriptions/\(code)/refund", body: ["amount": 5])
        #expect(await h.delivered(after: mark).last?.json["data"]?["transaction_reference"]?.stringValue == reference)
    }
}
