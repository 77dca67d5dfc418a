import Testing
@testable import SandboxKit

/// Lemon Squeezy webhook shapes a client relies on: the order ↔ subscription
/// link, the full subscription object and `meta.custom_data` on every event.
@Suite struct LemonSqueezyFidelityTests {
    func patch(_ h: Harness, _ id: Int, _ attributes: JSONValue) async -> SandboxResponse {
        await h.ls("PATCH", "/subscriptions/\(id)", body: ["data": ["type": "subscriptions", "id": .string(String(id)), "attributes": attributes]])
    }

    @Test func firstPurchaseSendsOrderCreatedAndASubscriptionNamingThatOrder() async throws {
        let h = Harness()
        let id = try #require(await h.lsSubscribe())
        let sent = h.transport.sent
        #expect(sent.map(\.lsEvent) == ["order_created", "subscription_created", "subscription_payment_success"])
        let order = try #require(sent[0].json["data"])
        let subscription = try #require(sent[1].json["data"]?["attributes"])
        #expect(order["type"]?.stringValue == "orders")
        let orderID = try #require(order["id"]?.stringValue.flatMap { Int($0) })
        #expect(subscription["order_id"]?.intValue == orderID)
        let item = try #require(order["attributes"]?["first_order_item"])
        #expect(item["order_id"]?.intValue == orderID)
        #expect(item["id"] == subscription["order_item_id"])
        #expect(item["product_id"] == subscription["product_id"])
        #expect(item["variant_id"] == subscription["variant_id"])
        #expect(item["variant_name"]?.stringValue == "Monthly")
        #expect(sent[1].json["data"]?["id"]?.stringValue == String(id))
        #expect(sent[2].json["data"]?["attributes"]?["subscription_id"]?.intValue == id)
        #expect(await h.ls("GET", "/subscriptions?filter%5Border_id%5D=\(orderID)").json?["data"]?[0]?["id"]?.stringValue == String(id))
    }

    @Test func pauseAndUnpauseWebhooksCarryTheFullSubscription() async throws {
        let h = Harness()
        let id = try #require(await h.lsSubscribe())
        var mark = await h.mark()

        let paused = await patch(h, id, ["pause": ["mode": "void", "resumes_at": "2030-01-01T00:00:00Z"]])
        #expect(paused.status == 200)
        #expect(paused.json?["data"]?["attributes"]?["status"]?.stringValue == "paused")
        let events = await h.delivered(after: mark)
        #expect(events.map(\.lsEvent) == ["subscription_paused", "subscription_updated"])
        for event in events {
            let data = try #require(event.json["data"])
            #expect(data["type"]?.stringValue == "subscriptions")
            #expect(data["id"]?.stringValue == String(id))
            let attributes = try #require(data["attributes"])
            #expect(attributes["status"]?.stringValue == "paused")
            #expect(attributes["status_formatted"]?.stringValue == "Paused")
            #expect(attributes["pause"] == ["mode": "void", "resumes_at": "2030-01-01T00:00:00.000000Z"])
            #expect(attributes["test_mode"] == .bool(true))
            #expect(attributes["cancelled"] == .bool(false))
            #expect(attributes["renews_at"]?.stringValue != nil)
            #expect(attributes["urls"]?["customer_portal"]?.stringValue != nil)
            #expect(event.json["meta"]?["custom_data"] == ["user_id": "42"])
            #expect(event.json["meta"]?["test_mode"] == .bool(true))
        }
        mark = await h.mark()

        let unpaused = await patch(h, id, ["pause": nil])
        #expect(unpaused.json?["data"]?["attributes"]?["pause"] == .null)
        let back = await h.delivered(after: mark)
        #expect(back.map(\.lsEvent) == ["subscription_unpaused", "subscription_updated"])
        #expect(
            back.allSatisfy {
                $0.json["data"]?["attributes"]?["status"]?.stringValue == "active" && $0.json["data"]?["attributes"]?["pause"] == .null
            })
        #expect(back.allSatisfy { $0.json["meta"]?["custom_data"] == ["user_id": "42"] })

        let badMode = await patch(h, id, ["pause": ["mode": "forever"]])
        #expect(badMode.status == 422)
        #expect(badMode.json?["errors"]?[0]?["source"]?["pointer"]?.stringValue == "/data/attributes/pause/mode")
    }

    @Test func everySubscriptionEventEchoesTheCheckoutCustomData() async throws {
        let h = Harness()
        let custom: JSONValue = ["user_id": "user-7", "source": "ios"]
        let checkout = try #require(await h.lsCheckout(variant: 2, custom: custom))
        let paid = await h.control("POST", "/checkouts/lemonsqueezy/\(checkout)/pay")
        let id = try #require(paid.json?["subscription_id"]?.intValue)
        for action in ["renew", "payment_failed", "unpaid", "recover", "cancel"] {
            #expect(await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/\(action)").status == 200, "\(action)")
        }
        #expect(await patch(h, id, ["cancelled": false]).status == 200)
        #expect(await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/pause", body: ["mode": "free"]).status == 200)
        #expect(await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/unpause").status == 200)
        #expect(await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/expire").status == 200)
        let sent = await h.delivered(after: 0)
        #expect(
            Set(sent.compactMap(\.lsEvent)).isSuperset(of: [
                "subscription_created", "subscription_updated", "subscription_payment_success", "subscription_payment_failed",
                "subscription_payment_recovered", "subscription_cancelled", "subscription_resumed", "subscription_paused",
                "subscription_unpaused", "subscription_expired",
            ]))
        for event in sent {
            #expect(event.json["meta"]?["custom_data"] == custom, "\(event.lsEvent ?? "?")")
            guard event.json["data"]?["type"]?.stringValue == "subscriptions" else { continue }
            let attributes = event.json["data"]?["attributes"]
            #expect(attributes?["pause"] != nil, "\(event.lsEvent ?? "?") lacks pause")
            #expect(attributes?["test_mode"] == .bool(true), "\(event.lsEvent ?? "?") lacks test_mode")
            #expect(attributes?["order_id"]?.intValue == paid.json?["order_id"]?.intValue)
        }
    }
}
