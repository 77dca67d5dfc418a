import Testing
@testable import SandboxKit

@Suite struct LifecycleTests {
    func events(_ h: Harness, after count: Int) async -> [String?] {
        await h.app.settleDeliveries()
        return h.transport.sent.dropFirst(count).map { $0.lsEvent ?? $0.psEvent }
    }

    @Test func lemonSqueezyCancelResumeExpire() async throws {
        let h = Harness()
        let id = try #require(await h.lsSubscribe())
        var mark = h.transport.sent.count

        let cancelled = try #require(await h.ls("DELETE", "/subscriptions/\(id)").json?["data"]?["attributes"])
        #expect(cancelled["status"]?.stringValue == "cancelled")
        #expect(cancelled["cancelled"] == .bool(true))
        #expect(cancelled["ends_at"] == cancelled["renews_at"])
        #expect(await events(h, after: mark) == ["subscription_cancelled", "subscription_updated"])
        #expect(h.transport.sent.last?.json["meta"]?["custom_data"] == ["user_id": "42"])
        mark = h.transport.sent.count

        let resumed = await h.ls(
            "PATCH", "/subscriptions/\(id)", body: ["data": ["type": "subscriptions", "id": .string(String(id)), "attributes": ["cancelled": false]]])
        #expect(resumed.json?["data"]?["attributes"]?["status"]?.stringValue == "active")
        #expect(resumed.json?["data"]?["attributes"]?["ends_at"] == .null)
        #expect(await events(h, after: mark) == ["subscription_resumed", "subscription_updated"])
        mark = h.transport.sent.count

        let listed = try #require(
            await h.ls("GET", "/subscriptions?filter%5Buser_email%5D=buyer@example.com&filter%5Bstore_id%5D=1").json?["data"]?.arrayValue)
        #expect(listed.count == 1)

        #expect(await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/expire").status == 200)
        #expect(await events(h, after: mark) == ["subscription_expired", "subscription_updated"])
        #expect(await h.ls("GET", "/subscriptions/\(id)").json?["data"]?["attributes"]?["status"]?.stringValue == "expired")
        let tooLate = await h.ls(
            "PATCH", "/subscriptions/\(id)", body: ["data": ["type": "subscriptions", "id": .string(String(id)), "attributes": ["cancelled": false]]])
        #expect(tooLate.status == 422)
    }

    @Test func lemonSqueezyPaymentsPauseAndRefund() async throws {
        let h = Harness()
        let id = try #require(await h.lsSubscribe())
        var mark = h.transport.sent.count
        #expect(
            await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/renew").json?["events"] == [
                "subscription_payment_success", "subscription_updated",
            ])
        #expect(
            await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/payment_failed").json?["subscription"]?["attributes"]?["status"]?.stringValue
                == "past_due")
        #expect(
            await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/recover").json?["events"] == [
                "subscription_payment_success", "subscription_payment_recovered", "subscription_updated",
            ])
        #expect(await events(h, after: mark).count == 7)
        mark = h.transport.sent.count

        let paused = await h.ls(
            "PATCH", "/subscriptions/\(id)",
            body: ["data": ["type": "subscriptions", "id": .string(String(id)), "attributes": ["pause": ["mode": "free"]]]])
        #expect(paused.json?["data"]?["attributes"]?["status"]?.stringValue == "paused")
        #expect(paused.json?["data"]?["attributes"]?["pause"]?["mode"]?.stringValue == "free")
        _ = await h.ls(
            "PATCH", "/subscriptions/\(id)", body: ["data": ["type": "subscriptions", "id": .string(String(id)), "attributes": ["pause": nil]]])
        #expect(await events(h, after: mark) == ["subscription_paused", "subscription_updated", "subscription_unpaused", "subscription_updated"])
        mark = h.transport.sent.count

        let refund = await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/refund")
        #expect(refund.json?["events"] == ["subscription_payment_refunded"]) // the latest payment was a renewal
        let orderRefund = await h.control("POST", "/lemonsqueezy/orders/1/refund")
        #expect(orderRefund.json?["events"] == ["order_refunded", "subscription_payment_refunded"])
        #expect(await h.ls("GET", "/orders/1").json?["data"]?["attributes"]?["refunded"] == .bool(true))
        #expect(await events(h, after: mark).count == 3)
    }

    @Test func paystackDisableEnableExpireRenew() async throws {
        let h = Harness()
        let (_, code) = try #require(await h.psSubscribe())
        let token = try #require(await h.ps("GET", "/subscription/\(code)").json?["data"]?["email_token"]?.stringValue)
        var mark = h.transport.sent.count

        let wrong = await h.ps("POST", "/subscription/disable", body: ["code": .string(code), "token": "not-the-token"])
        #expect(wrong.status == 404)
        #expect(wrong.json?["status"] == .bool(false))

        #expect(
            await h.control("POST", "/paystack/subscriptions/\(code)/renew").json?["events"] == [
                "invoice.create", "charge.success", "invoice.update",
            ])
        await h.app.settleDeliveries()
        let renewal = h.transport.sent.dropFirst(mark).first { $0.psEvent == "charge.success" }
        #expect(renewal?.json["data"]?["metadata"] == ["invoice_action": "create"])
        mark = h.transport.sent.count

        let disabled = await h.ps("POST", "/subscription/disable", body: ["code": .string(code), "token": .string(token)])
        #expect(disabled.json == ["status": true, "message": "Subscription disabled successfully"])
        #expect(await events(h, after: mark) == ["subscription.not_renew"])
        #expect(await h.ps("GET", "/subscription/\(code)").json?["data"]?["status"]?.stringValue == "non-renewing")
        mark = h.transport.sent.count

        let enabled = await h.ps("POST", "/subscription/enable", body: ["code": .string(code), "token": .string(token)])
        #expect(enabled.json?["message"]?.stringValue == "Subscription enabled successfully")
        #expect(await h.ps("GET", "/subscription/\(code)").json?["data"]?["status"]?.stringValue == "active")
        #expect(await events(h, after: mark).isEmpty)

        #expect(await h.control("POST", "/paystack/subscriptions/\(code)/cancel").json?["events"] == ["subscription.not_renew"])
        let expired = await h.control("POST", "/paystack/subscriptions/\(code)/expire")
        #expect(expired.json?["events"] == ["subscription.disable"])
        #expect(expired.json?["subscription"]?["status"]?.stringValue == "cancelled")
        await h.app.settleDeliveries()
        #expect(h.transport.sent.last?.json["data"]?["status"]?.stringValue == "cancelled")
    }

    @Test func paystackFailureRefundAndMissingConcepts() async throws {
        let h = Harness()
        let (reference, code) = try #require(await h.psSubscribe())
        #expect(
            await h.control("POST", "/paystack/subscriptions/\(code)/payment_failed").json?["events"] == [
                "invoice.create", "invoice.payment_failed", "invoice.update",
            ])
        #expect(await h.ps("GET", "/subscription/\(code)").json?["data"]?["status"]?.stringValue == "attention")
        #expect(await h.control("POST", "/paystack/subscriptions/\(code)/recover").json?["events"] == ["charge.success", "invoice.update"])
        let pause = await h.control("POST", "/paystack/subscriptions/\(code)/pause")
        #expect(pause.status == 422)
        #expect(pause.json?["error"]?.stringValue?.contains("no pause") == true)
        let refund = await h.control("POST", "/paystack/transactions/\(reference)/refund")
        #expect(refund.json?["events"] == ["refund.pending", "refund.processed"])
        await h.app.settleDeliveries()
        #expect(h.transport.sent.last?.json["data"]?["amount"] == "250000")
        #expect(await h.ps("GET", "/transaction/verify/\(reference)").json?["data"]?["status"]?.stringValue == "reversed")
    }
}
