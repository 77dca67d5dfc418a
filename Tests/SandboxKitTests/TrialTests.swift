import Testing
@testable import SandboxKit

/// Lemon Squeezy free trials, opted into per purchase with
/// `POST /_sandbox/checkouts/lemonsqueezy/{id}/pay` `{"trial_days": N}`.
@Suite struct TrialTests {
    /// Pays a checkout for subscription variant 2 ($4.99 a month) with a trial; returns (response, subscription id).
    func subscribeWithTrial(_ h: Harness, days: JSONValue = 14) async throws -> (SandboxResponse, Int) {
        let checkout = try #require(await h.lsCheckout(variant: 2))
        let paid = await h.control("POST", "/checkouts/lemonsqueezy/\(checkout)/pay", body: ["trial_days": days])
        return (paid, try #require(paid.json?["subscription_id"]?.intValue))
    }

    @Test func trialStartsOnTrialAndRenewEndsItWithTheFirstCharge() async throws {
        let h = Harness()
        let (paid, id) = try await subscribeWithTrial(h)
        #expect(paid.json?["events"] == ["order_created", "subscription_created"]) // nothing is charged yet
        let sent = await h.delivered(after: 0)
        #expect(sent.map(\.lsEvent) == ["order_created", "subscription_created"])
        let order = try #require(sent.first?.json["data"]?["attributes"])
        #expect(order["total"]?.intValue == 0)
        #expect(order["status"]?.stringValue == "paid")
        #expect(order["first_order_item"]?["variant_id"]?.intValue == 2)
        let created = try #require(sent.last?.json["data"]?["attributes"])
        #expect(created["status"]?.stringValue == "on_trial")
        #expect(created["status_formatted"]?.stringValue == "On trial")
        #expect(created["trial_ends_at"]?.stringValue == "2025-06-29T15:06:40.000000Z") // now + 14 days
        #expect(created["renews_at"]?.stringValue == "2025-06-29T15:06:40.000000Z")
        #expect(created["ends_at"] == .null)
        #expect(sent.last?.json["meta"]?["custom_data"] == ["user_id": "42"])

        let fetched = try #require(await h.ls("GET", "/subscriptions/\(id)").json?["data"]?["attributes"])
        #expect(fetched["status"]?.stringValue == "on_trial")
        #expect(fetched["trial_ends_at"]?.stringValue == "2025-06-29T15:06:40.000000Z")
        #expect(await h.ls("GET", "/subscriptions?filter%5Bstatus%5D=on_trial").json?["data"]?.arrayValue?.count == 1)
        #expect(await h.control("POST", "/lemonsqueezy/orders/1/refund").status == 422) // the trial order was free

        h.clock.advance(days: 14)
        var mark = await h.mark()
        let ended = await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/renew")
        #expect(ended.json?["events"] == ["subscription_payment_success", "subscription_updated"])
        let afterTrial = await h.delivered(after: mark)
        let invoice = try #require(afterTrial.first?.json["data"])
        #expect(invoice["type"]?.stringValue == "subscription-invoices")
        #expect(invoice["attributes"]?["billing_reason"]?.stringValue == "initial")
        #expect(invoice["attributes"]?["status"]?.stringValue == "paid")
        #expect(invoice["attributes"]?["total"]?.intValue == 499)
        #expect(invoice["attributes"]?["subscription_id"]?.intValue == id)
        let updated = try #require(afterTrial.last?.json["data"]?["attributes"])
        #expect(afterTrial.last?.lsEvent == "subscription_updated")
        #expect(updated["status"]?.stringValue == "active")
        #expect(updated["trial_ends_at"] == .null)
        #expect(updated["renews_at"]?.stringValue == "2025-07-29T15:06:40.000000Z") // a period after the trial's end
        #expect(await h.ls("GET", "/subscriptions/\(id)").json?["data"]?["attributes"]?["status"]?.stringValue == "active")

        // The first charge was not paid through the (free) order, so refunding it touches only the invoice.
        mark = await h.mark()
        #expect(
            await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/refund", body: ["amount": 100]).json?["events"] == [
                "subscription_payment_refunded"
            ])
        #expect(await h.delivered(after: mark).first?.json["data"]?["attributes"]?["billing_reason"]?.stringValue == "initial")

        mark = await h.mark()
        _ = await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/renew")
        #expect(await h.delivered(after: mark).first?.json["data"]?["attributes"]?["billing_reason"]?.stringValue == "renewal")
    }

    @Test func trialCancelResumeAndAFailedFirstCharge() async throws {
        let h = Harness()
        let (_, id) = try await subscribeWithTrial(h, days: 7)
        let cancelled = try #require(await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/cancel").json?["subscription"]?["attributes"])
        #expect(cancelled["status"]?.stringValue == "cancelled")
        #expect(cancelled["ends_at"]?.stringValue == "2025-06-22T15:06:40.000000Z") // the trial's end
        let resumed = try #require(await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/resume").json?["subscription"]?["attributes"])
        #expect(resumed["status"]?.stringValue == "on_trial") // back on the trial, not active
        #expect(resumed["trial_ends_at"]?.stringValue == "2025-06-22T15:06:40.000000Z")

        let mark = await h.mark()
        let failed = await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/payment_failed")
        #expect(failed.json?["events"] == ["subscription_payment_failed", "subscription_updated"])
        #expect(failed.json?["subscription"]?["attributes"]?["status"]?.stringValue == "past_due")
        #expect(failed.json?["subscription"]?["attributes"]?["trial_ends_at"] == .null)
        let invoice = try #require(await h.delivered(after: mark).first?.json["data"]?["attributes"])
        #expect(invoice["billing_reason"]?.stringValue == "initial")
        #expect(invoice["status"]?.stringValue == "pending")
        #expect(
            await h.control("POST", "/lemonsqueezy/subscriptions/\(id)/recover").json?["subscription"]?["attributes"]?["status"]?.stringValue
                == "active")
    }

    @Test func trialDaysAreRefusedWhereThereIsNoTrial() async throws {
        let h = Harness()
        let oneTime = try #require(await h.lsCheckout(variant: 1))
        #expect(await h.control("POST", "/checkouts/lemonsqueezy/\(oneTime)/pay", body: ["trial_days": 14]).status == 422)
        let checkout = try #require(await h.lsCheckout(variant: 2))
        for bad: JSONValue in [0, -3, 731, "soon", 1.5] {
            #expect(await h.control("POST", "/checkouts/lemonsqueezy/\(checkout)/pay", body: ["trial_days": bad]).status == 422, "\(bad)")
        }

        // Paystack documents no trials.
        let initialized = await h.ps(
            "POST", "/transaction/initialize", body: ["email": "payer@example.com", "amount": "1000", "plan": "PLN_sbxpremmonth01"])
        let access = try #require(initialized.json?["data"]?["access_code"]?.stringValue)
        let paystack = await h.control("POST", "/checkouts/paystack/\(access)/pay", body: ["trial_days": 14])
        #expect(paystack.status == 422)
        #expect(paystack.json?["error"]?.stringValue?.contains("no free trials") == true)
        #expect(await h.mark() == 0)

        // Nothing was paid by the refusals: both still pay normally.
        #expect(await h.control("POST", "/checkouts/lemonsqueezy/\(checkout)/pay").json?["subscription_id"]?.intValue != nil)
        #expect(await h.control("POST", "/checkouts/paystack/\(access)/pay").json?["subscription_code"]?.stringValue != nil)
    }
}
