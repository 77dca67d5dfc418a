import Testing
@testable import SandboxKit

@Suite struct PurchaseFlowTests {
    @Test func lemonSqueezyBrowserCheckoutSendsSignedWebhooksInOrder() async throws {
        let h = Harness()
        let id = try #require(await h.lsCheckout(variant: 2, redirect: "https://app.example/thanks"))
        let created = try #require(await h.ls("GET", "/checkouts/\(id)").json?["data"]?["attributes"])
        let url = try #require(created["url"]?.stringValue)
        #expect(url.hasPrefix("http://127.0.0.1:8090/checkout/lemonsqueezy/\(id)?signature="))

        let page = await h.app.handle(SandboxRequest(method: "GET", target: "/checkout/lemonsqueezy/\(id)"))
        #expect(page.status == 200)
        #expect(page.text.contains("<form method=\"post\" action=\"/checkout/lemonsqueezy/\(id)/pay\">"))
        #expect(page.text.contains("$4.99"))
        #expect(page.text.contains("buyer@example.com"))

        let pay = await h.app.handle(
            SandboxRequest(method: "POST", target: "/checkout/lemonsqueezy/\(id)/pay", body: Array("email=buyer%40example.com".utf8)))
        #expect(pay.status == 303)
        #expect(pay.headers["location"] == "https://app.example/thanks")
        await h.app.settleDeliveries()

        let sent = h.transport.sent
        #expect(sent.map(\.lsEvent) == ["order_created", "subscription_created", "subscription_payment_success"])
        for request in sent {
            #expect(request.url == "http://receiver/api/webhooks/lemonsqueezy")
            #expect(request.header("X-Signature") == FakeHMAC.hex("fake256-", Array("whsec_ls".utf8), request.body))
            #expect(request.header("X-Event-Name") == request.lsEvent)
            #expect(request.json["meta"]?["custom_data"] == ["user_id": "42"])
            #expect(request.json["meta"]?["test_mode"] == .bool(true))
        }
        let subscription = try #require(sent[1].json["data"])
        #expect(subscription["type"]?.stringValue == "subscriptions")
        let attributes = try #require(subscription["attributes"])
        for key in [
            "status", "renews_at", "ends_at", "created_at", "updated_at", "card_brand", "card_last_four", "user_email", "customer_id", "order_id",
            "product_id", "variant_id", "product_name", "variant_name",
        ] {
            #expect(attributes[key] != nil, "missing \(key)")
        }
        #expect(attributes["urls"]?["customer_portal"]?.stringValue != nil)
        #expect(attributes["urls"]?["update_payment_method"]?.stringValue != nil)
        #expect(attributes["status"]?.stringValue == "active")
        #expect(attributes["variant_name"]?.stringValue == "Monthly")
        #expect(attributes["renews_at"]?.stringValue == "2025-07-15T15:06:40.000000Z")
        #expect(sent[2].json["data"]?["type"]?.stringValue == "subscription-invoices")
        // PHP-style escaping, as Lemon Squeezy sends it.
        #expect(sent[0].body.count > 0 && String(decoding: sent[0].body, as: UTF8.self).contains("http:\\/\\/"))

        let again = await h.app.handle(SandboxRequest(method: "POST", target: "/checkout/lemonsqueezy/\(id)/pay"))
        #expect(again.status == 409)
    }

    @Test func lemonSqueezyOneTimePurchaseSendsOnlyOrderCreated() async throws {
        let h = Harness()
        let id = try #require(await h.lsCheckout(variant: 1, custom: ["user_id": 7]))
        let paid = await h.control("POST", "/checkouts/lemonsqueezy/\(id)/pay", body: ["email": "other@example.com"])
        #expect(paid.status == 200)
        #expect(paid.json?["events"] == ["order_created"])
        await h.app.settleDeliveries()
        let order = try #require(h.transport.sent.first?.json)
        #expect(order["meta"]?["custom_data"]?["user_id"]?.intValue == 7)
        #expect(order["data"]?["attributes"]?["total"]?.intValue == 999)
        #expect(order["data"]?["attributes"]?["user_email"]?.stringValue == "other@example.com")
        let orderID = try #require(paid.json?["order_id"]?.intValue)
        #expect(await h.ls("GET", "/orders/\(orderID)").json?["data"]?["attributes"]?["status"]?.stringValue == "paid")
    }

    @Test func paystackPlanPurchaseEchoesMetadataAndSigns() async throws {
        let h = Harness()
        let r = await h.ps(
            "POST", "/transaction/initialize",
            body: [
                "email": "payer@example.com", "amount": "1000", "plan": "PLN_sbxpremmonth01", "metadata": "{\"user_id\":\"42\"}",
                "callback_url": "https://app.example/done",
            ])
        let access = try #require(r.json?["data"]?["access_code"]?.stringValue)
        let reference = try #require(r.json?["data"]?["reference"]?.stringValue)
        let page = await h.app.handle(SandboxRequest(method: "GET", target: "/checkout/paystack/\(access)"))
        #expect(page.text.contains("₦2,500.00")) // the plan's amount overrides the one sent
        let pay = await h.app.handle(
            SandboxRequest(method: "POST", target: "/checkout/paystack/\(access)/pay", body: Array("email=payer%40example.com".utf8)))
        #expect(pay.status == 303)
        #expect(pay.headers["Location"] == "https://app.example/done?trxref=\(reference)&reference=\(reference)")
        await h.app.settleDeliveries()

        let sent = h.transport.sent
        #expect(sent.map(\.psEvent) == ["charge.success", "subscription.create"])
        for request in sent {
            #expect(request.header("x-paystack-signature") == FakeHMAC.hex("fake512-", Array(Harness.psKey.utf8), request.body))
        }
        let charge = try #require(sent[0].json["data"])
        #expect(charge["metadata"] == ["user_id": "42"])
        #expect(charge["amount"]?.intValue == 250_000)
        #expect(charge["plan"]?["plan_code"]?.stringValue == "PLN_sbxpremmonth01")
        #expect(charge["customer"]?["email"]?.stringValue == "payer@example.com")
        let sub = try #require(sent[1].json["data"])
        #expect(sub["status"]?.stringValue == "active")
        #expect(sub["email_token"] == nil) // absent from subscription.create, as documented
        #expect(sub["next_payment_date"]?.stringValue == "2025-07-15T15:06:40.000Z")
        let code = try #require(sub["subscription_code"]?.stringValue)

        let verify = try #require(await h.ps("GET", "/transaction/verify/\(reference)").json?["data"])
        #expect(verify["status"]?.stringValue == "success")
        let customer = try #require(await h.ps("GET", "/customer/payer@example.com").json?["data"])
        let customerID = try #require(customer["id"]?.intValue)
        let list = try #require(await h.ps("GET", "/subscription?customer=\(customerID)&plan=101").json?["data"]?.arrayValue)
        #expect(list.map { $0["subscription_code"]?.stringValue } == [code])
        let link = try #require(await h.ps("GET", "/subscription/\(code)/manage/link").json?["data"]?["link"]?.stringValue)
        #expect(link.hasPrefix("http://127.0.0.1:8090/manage/paystack/\(code)"))
    }
}
