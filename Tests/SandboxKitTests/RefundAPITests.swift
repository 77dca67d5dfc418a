import Testing
@testable import SandboxKit

/// The providers' own refund endpoints, as the sandbox emulates them: the
/// request each documents, its validation, the answer, and the refund
/// webhook that follows (the same the `/_sandbox` refund controls send).
@Suite struct RefundAPITests {
    func lsOrder(_ h: Harness) async throws -> Int {
        let checkout = try #require(await h.lsCheckout(variant: 1))
        return try #require(await h.control("POST", "/checkouts/lemonsqueezy/\(checkout)/pay").json?["order_id"]?.intValue)
    }

    func lsRefundBody(_ type: String, _ id: Int, amount: JSONValue? = nil) -> JSONValue {
        var attributes: [JSONField] = []
        if let amount { attributes.append(JSONField(key: "amount", value: amount)) }
        return ["data": ["type": .string(type), "id": .string(String(id)), "attributes": .object(attributes)]]
    }

    @Test func lemonSqueezyOrderRefundAnswersTheOrderAndSendsOrderRefunded() async throws {
        let h = Harness()
        let orderID = try await lsOrder(h)
        let mark = await h.mark()
        let part = await h.ls("POST", "/orders/\(orderID)/refund", body: lsRefundBody("orders", orderID, amount: 300))
        #expect(part.status == 200)
        let attributes = try #require(part.json?["data"]?["attributes"])
        #expect(part.json?["data"]?["type"]?.stringValue == "orders")
        #expect(attributes["refunded_amount"]?.intValue == 300 && attributes["status"]?.stringValue == "partial_refund")
        let sent = await h.delivered(after: mark)
        #expect(sent.map { $0.header("X-Event-Name") } == ["order_refunded"])

        // More than is left (699), a wrong type or id, a bad amount: 422 with a pointer, nothing sent.
        let after = await h.mark()
        let over = await h.ls("POST", "/orders/\(orderID)/refund", body: lsRefundBody("orders", orderID, amount: 700))
        #expect(over.status == 422 && over.json?["errors"]?[0]?["detail"]?.stringValue?.contains("699") == true)
        #expect(await h.ls("POST", "/orders/\(orderID)/refund", body: lsRefundBody("subscriptions", orderID)).status == 422)
        #expect(await h.ls("POST", "/orders/\(orderID)/refund", body: lsRefundBody("orders", orderID + 1)).status == 422)
        for bad: JSONValue in [0, -5, "lots"] {
            let response = await h.ls("POST", "/orders/\(orderID)/refund", body: lsRefundBody("orders", orderID, amount: bad))
            #expect(response.status == 422 && response.json?["errors"]?[0]?["source"]?["pointer"]?.stringValue == "/data/attributes/amount")
        }
        #expect(await h.ls("POST", "/orders/424242/refund", body: lsRefundBody("orders", 424242)).status == 404)
        #expect(await h.ls("POST", "/orders/\(orderID)/refund", body: lsRefundBody("orders", orderID), key: "wrong").status == 401)
        #expect(await h.delivered(after: after).isEmpty)

        // No amount: the rest.
        let rest = await h.ls("POST", "/orders/\(orderID)/refund", body: lsRefundBody("orders", orderID))
        #expect(rest.json?["data"]?["attributes"]?["status"]?.stringValue == "refunded")
        #expect(rest.json?["data"]?["attributes"]?["refunded"] == .bool(true))
    }

    @Test func lemonSqueezyInvoiceRefundSendsSubscriptionPaymentRefunded() async throws {
        let h = Harness()
        let subscriptionID = try #require(await h.lsSubscribe())
        // A renewal's invoice is refunded by itself.
        _ = await h.control("POST", "/lemonsqueezy/subscriptions/\(subscriptionID)/renew")
        let invoices = await h.delivered(after: 0).filter { $0.header("X-Event-Name") == "subscription_payment_success" }
            .compactMap { $0.json["data"]?["id"]?.stringValue.flatMap { Int($0) } }
        #expect(invoices.count == 2)
        let invoiceID = try #require(invoices.last)
        let mark = await h.mark()
        let response = await h.ls(
            "POST", "/subscription-invoices/\(invoiceID)/refund", body: lsRefundBody("subscription-invoices", invoiceID, amount: 100))
        #expect(response.status == 200 && response.json?["data"]?["type"]?.stringValue == "subscription-invoices")
        #expect(response.json?["data"]?["attributes"]?["refunded_amount"]?.intValue == 100)
        #expect(await h.delivered(after: mark).map { $0.header("X-Event-Name") } == ["subscription_payment_refunded"])

        // The first invoice was paid through the order: both are refunded.
        let first = try #require(invoices.first)
        let next = await h.mark()
        #expect(await h.ls("POST", "/subscription-invoices/\(first)/refund", body: lsRefundBody("subscription-invoices", first)).status == 200)
        #expect(await h.delivered(after: next).map { $0.header("X-Event-Name") } == ["order_refunded", "subscription_payment_refunded"])
    }

    @Test func paystackRefundByIdOrReferenceQueuesItAndSendsRefundProcessed() async throws {
        let h = Harness()
        let (reference, _) = try #require(await h.psSubscribe())
        let transaction = try #require(await h.ps("GET", "/transaction/verify/\(reference)").json?["data"])
        let id = try #require(transaction["id"]?.intValue)
        let amount = try #require(transaction["amount"]?.intValue)
        let mark = await h.mark()

        let queued = await h.ps("POST", "/refund", body: ["transaction": .int(id), "amount": 1000])
        #expect(queued.status == 200 && queued.json?["status"] == .bool(true))
        #expect(queued.json?["message"]?.stringValue == "Refund has been queued for processing")
        #expect(queued.json?["data"]?["status"]?.stringValue == "pending" && queued.json?["data"]?["amount"]?.intValue == 1000)
        #expect(queued.json?["data"]?["transaction"]?["reference"]?.stringValue == reference)
        let names = await h.delivered(after: mark).map { $0.json["event"]?.stringValue }
        #expect(names == ["refund.pending", "refund.processed"])

        let after = await h.mark()
        let over = await h.ps("POST", "/refund", body: ["transaction": .string(reference), "amount": .int(amount)])
        #expect(over.status == 400 && over.json?["status"] == .bool(false))
        #expect(await h.ps("POST", "/refund", body: ["amount": 5]).status == 400)
        #expect(await h.ps("POST", "/refund", body: ["transaction": "T_nope"]).status == 404)
        #expect(await h.delivered(after: after).isEmpty)

        // By reference, no amount: the rest; the transaction is then reversed.
        let rest = await h.ps("POST", "/refund", body: ["transaction": .string(reference)])
        #expect(rest.json?["data"]?["amount"]?.intValue == amount - 1000)
        #expect(await h.ps("GET", "/transaction/verify/\(reference)").json?["data"]?["status"]?.stringValue == "reversed")
    }

    @Test func stripeRefundsTakeAPaymentIntentOrACharge() async throws {
        let h = Harness()
        let session = try #require(await h.stripeSession(price: "price_SbxProIcons", mode: "payment"))
        _ = await h.control("POST", "/checkouts/stripe/\(session)/pay")
        await h.app.settleDeliveries()
        let intent = try #require(await h.stripe("GET", "/checkout/sessions/\(session)").json?["payment_intent"]?.stringValue)
        let charge = try #require(await h.stripe("GET", "/payment_intents/\(intent)").json?["latest_charge"]?.stringValue)
        let mark = await h.mark()

        let part = await h.stripe("POST", "/refunds", form: [("payment_intent", intent), ("amount", "300")], idempotencyKey: "r1")
        #expect(part.status == 200 && part.json?["object"]?.stringValue == "refund" && part.json?["amount"]?.intValue == 300)
        #expect(part.json?["charge"]?.stringValue == charge)
        let replay = await h.stripe("POST", "/refunds", form: [("payment_intent", intent), ("amount", "300")], idempotencyKey: "r1")
        #expect(replay.json?["id"] == part.json?["id"] && replay.headers["Idempotent-Replayed"] == "true")
        #expect(await h.delivered(after: mark).map { $0.header("Stripe-Signature") != nil } == [true])

        let over = await h.stripe("POST", "/refunds", form: [("charge", charge), ("amount", "700")])
        #expect(over.status == 400 && over.json?["error"]?["code"]?.stringValue == "amount_too_large")
        #expect(await h.stripe("POST", "/refunds", form: [("amount", "1")]).json?["error"]?["code"]?.stringValue == "parameter_missing")
        #expect(await h.stripe("POST", "/refunds", form: [("payment_intent", intent), ("charge", charge)]).status == 400)
        #expect(await h.stripe("POST", "/refunds", form: [("payment_intent", "pi_nope")]).json?["error"]?["code"]?.stringValue == "resource_missing")
        #expect(await h.stripe("POST", "/refunds", form: [("charge", charge), ("amount", "0")]).status == 400)

        #expect(await h.stripe("POST", "/refunds", form: [("charge", charge)]).json?["amount"]?.intValue == 699)
        let again = await h.stripe("POST", "/refunds", form: [("charge", charge)])
        #expect(again.json?["error"]?["code"]?.stringValue == "charge_already_refunded")
        let events = await h.delivered(after: mark).compactMap { $0.json["type"]?.stringValue }
        #expect(events == ["charge.refunded", "charge.refunded"])
    }
}
