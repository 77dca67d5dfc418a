import Testing
@testable import SandboxKit

/// The `/_sandbox` lifecycle controls end-to-end tests drive instead of waiting for real time.
@Suite struct ControlEndpointTests {
    @Test func lemonSqueezyPastDueThenUnpaidThenRecovered() async throws {
        let h = Harness()
        let id = try #require(await h.lsSubscribe())
        let early = await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/unpaid")
        #expect(early.status == 422) // only a past_due subscription can run out of retries

        let pastDue = await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/payment_failed")
        #expect(pastDue.json?["events"] == ["subscription_payment_failed", "subscription_updated"])
        #expect(pastDue.json?["subscription"]?["attributes"]?["status"]?.stringValue == "past_due")
        let mark = await h.mark()

        let unpaid = await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/unpaid")
        #expect(unpaid.json?["events"] == ["subscription_payment_failed", "subscription_updated"])
        #expect(unpaid.json?["subscription"]?["attributes"]?["status"]?.stringValue == "unpaid")
        #expect(unpaid.json?["subscription"]?["attributes"]?["status_formatted"]?.stringValue == "Unpaid")
        let sent = await h.delivered(after: mark)
        #expect(sent.first?.json["data"]?["type"]?.stringValue == "subscription-invoices")
        #expect(sent.first?.json["data"]?["attributes"]?["status"]?.stringValue == "pending")
        #expect(sent.last?.json["data"]?["attributes"]?["status"]?.stringValue == "unpaid")
        #expect(await h.ls("GET", "/subscriptions/\(id)").json?["data"]?["attributes"]?["status"]?.stringValue == "unpaid")

        let recovered = await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/recover")
        #expect(recovered.json?["subscription"]?["attributes"]?["status"]?.stringValue == "active")
    }

    @Test func lemonSqueezyPauseWithModeAndExpireNow() async throws {
        let h = Harness()
        let id = try #require(await h.lsSubscribe())
        let paused = await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/pause", body: ["mode": "free", "resumes_at": "2026-01-01T00:00:00Z"])
        #expect(paused.json?["events"] == ["subscription_paused", "subscription_updated"])
        #expect(paused.json?["subscription"]?["attributes"]?["pause"] == ["mode": "free", "resumes_at": "2026-01-01T00:00:00.000000Z"])
        #expect(await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/pause", body: ["mode": "later"]).status == 422)
        #expect(await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/pause", body: ["mode": "void", "resumes_at": "soon"]).status == 422)

        let mark = await h.mark()
        let expired = await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/expire")
        #expect(expired.json?["events"] == ["subscription_expired", "subscription_updated"])
        let attributes = try #require(expired.json?["subscription"]?["attributes"])
        #expect(attributes["status"]?.stringValue == "expired")
        #expect(attributes["ends_at"]?.stringValue == "2025-06-15T15:06:40.000000Z")
        #expect(attributes["pause"] == .null)
        let sent = await h.delivered(after: mark)
        #expect(sent.first?.header("X-Event-Name") == "subscription_expired")
        #expect(sent.first?.json["data"]?["attributes"]?["status"]?.stringValue == "expired")
    }

    @Test func lemonSqueezyOrderRefund() async throws {
        let h = Harness()
        let checkout = try #require(await h.lsCheckout(variant: 1))
        let orderID = try #require(await h.control("POST", "/checkouts/lemonsqueezy/\(checkout)/pay").json?["order_id"]?.intValue)
        let mark = await h.mark()
        #expect(await h.control("POST", "/lemonsqueezy/orders/\(orderID)/refund").json?["events"] == ["order_refunded"])
        let refunded = try #require(await h.delivered(after: mark).first?.json)
        #expect(refunded["data"]?["id"]?.stringValue == String(orderID))
        #expect(refunded["data"]?["attributes"]?["status"]?.stringValue == "refunded")
        #expect(refunded["data"]?["attributes"]?["refunded_amount"]?.intValue == 999)
        #expect(refunded["meta"]?["custom_data"] == ["user_id": "42"])
        #expect(await h.control("POST", "/lemonsqueezy/orders/\(orderID)/refund").status == 422)
        #expect(await h.control("POST", "/lemonsqueezy/orders/999/refund").status == 404)
    }

    @Test func paystackDisableForGoodAsCancelledOrComplete() async throws {
        let h = Harness()
        for (status, sentStatus) in [("cancelled", "cancelled"), ("complete", "complete"), ("completed", "complete")] {
            let (_, code) = try #require(await h.psSubscribe())
            let mark = await h.mark()
            let disabled = await h.control("POST", "/paystack/subscriptions/\(code)/expire", body: ["status": .string(status)])
            #expect(disabled.json?["events"] == ["subscription.disable"])
            let sent = try #require(await h.delivered(after: mark).first?.json["data"])
            #expect(sent["status"]?.stringValue == sentStatus)
            #expect(sent["subscription_code"]?.stringValue == code)
            #expect(sent["email_token"]?.stringValue != nil)
            #expect(sent["authorization"]?["authorization_code"]?.stringValue?.hasPrefix("AUTH_") == true)
            #expect(
                await h.ps("GET", "/subscription/\(code)").json?["data"]?["status"]?.stringValue
                    == (status == "cancelled" ? "cancelled" : "completed"))
            #expect(await h.control("POST", "/paystack/subscriptions/\(code)/expire").status == 422) // already ended
        }
        let (_, code) = try #require(await h.psSubscribe())
        #expect(await h.control("POST", "/paystack/subscriptions/\(code)/expire", body: ["status": "paused"]).status == 422)
        #expect(await h.control("POST", "/paystack/subscriptions/\(code)/unpaid").status == 422) // no such status on Paystack
    }

    @Test func paystackPaymentFailureAndRefund() async throws {
        let h = Harness()
        let (reference, code) = try #require(await h.psSubscribe())
        let authorization = try #require(h.transport.sent.first?.json["data"]?["authorization"])
        var mark = await h.mark()
        #expect(
            await h.control("POST", "/paystack/subscriptions/\(code)/payment_failed").json?["subscription"]?["status"]?.stringValue == "attention")
        let failed = try #require(await h.delivered(after: mark).first { $0.psEvent == "invoice.payment_failed" }?.json["data"])
        #expect(failed["subscription"]?["subscription_code"]?.stringValue == code)
        #expect(failed["authorization"] == authorization)
        #expect(failed["transaction"] == [:])
        #expect(await h.ps("GET", "/subscription/\(code)").json?["data"]?["most_recent_invoice"]?["status"]?.stringValue == "failed")
        mark = await h.mark()

        #expect(await h.control("POST", "/paystack/transactions/\(reference)/refund").json?["events"] == ["refund.pending", "refund.processed"])
        let processed = try #require(await h.delivered(after: mark).last?.json)
        #expect(processed["event"]?.stringValue == "refund.processed")
        #expect(processed["data"]?["transaction_reference"]?.stringValue == reference)
        #expect(processed["data"]?["status"]?.stringValue == "processed")
        #expect(await h.control("POST", "/paystack/transactions/\(reference)/refund").status == 422)
        #expect(await h.control("POST", "/paystack/transactions/nope/refund").status == 404)
    }
}
