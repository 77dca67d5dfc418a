@testable import SeedModels
import Foundation
import HTTPClient
import TestSupport
import Testing

/// Paystack plan changes through the gateway (docs/plan-changes.md): Paystack
/// has none, so a change at period end stops the subscription's renewal and
/// starts the new plan's subscription then, for the same customer and card.
/// Checked in the entitlement (the current plan until the period ends), the
/// status answer (the pending change), the outgoing change's cause, and
/// Paystack's own ledger (never two charges for one period). In the plan
/// change suite, on its stack.
extension PlanChangeEndToEndTests {
    static let paystackMonthly = "ps_PLN_sbxpremmonth01", paystackYearly = "ps_PLN_sbxpremannual1"

    /// The sandbox's Paystack customer with `email` (`GET /customer/{email}`):
    /// their subscriptions and paid transactions.
    func paystackCustomer(_ flow: PurchaseFlow) async throws -> [String: Any] {
        let response = try await flow.stack.request(
            .get, flow.stack.sandbox + "/paystack/customer/\(flow.email)", headers: [("Authorization", "Bearer sk_test_sandbox_secret")])
        #expect(response.status == 200, "\(response.bodyString)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        return try #require(object["data"] as? [String: Any])
    }

    /// Buys `variant` and answers the subscription's code and next renewal.
    func paystackSubscribe(_ flow: PurchaseFlow, _ variant: String) async throws -> (code: String, renewsAt: String) {
        let product = try await productID(ofVariant: variant)
        try await flow.pay(checkoutURL: try await flow.createCheckout(productID: product, variantID: variant))
        let (_, raw) = try await flow.waitUntil("the paystack subscription active") { seed, _ in seed.active }
        return (try #require(raw["subscription_code"] as? String), try #require(raw["renews_at"] as? String))
    }

    /// The subscription a change made for the buyer: theirs other than `code`.
    func paystackSuccessor(_ flow: PurchaseFlow, of code: String) async throws -> String {
        let subscriptions = try #require(try await paystackCustomer(flow)["subscriptions"] as? [[String: Any]])
        #expect(subscriptions.count == 2, "\(subscriptions)")
        return try #require(subscriptions.compactMap { $0["subscription_code"] as? String }.first { $0 != code })
    }

    @Test func paystackMonthlyToAnnualAtPeriodEndStartsTheAnnualSubscriptionThen() async throws {
        let stack = try self.stack
        let contract = try OpenAPIContract.repository()
        let flow = try await PurchaseFlow.make(stack, provider: "paystack")
        let (code, renewsAt) = try await paystackSubscribe(flow, Self.paystackMonthly)
        let monthlyProduct = try await productID(ofVariant: Self.paystackMonthly)
        let yearlyProduct = try await productID(ofVariant: Self.paystackYearly)
        let report = try await reportFigures("paystack", currency: "NGN")

        // Paystack cannot change now.
        let now = try await change(flow, #"{"variantId":"\#(Self.paystackYearly)","effective":"now"}"#)
        #expect(now.status == 422 && now.bodyString.contains(#""code":"plan_change_timing_unsupported""#), "\(now.bodyString)")

        let scheduled = try await change(flow, #"{"variantId":"\#(Self.paystackYearly)","effective":"period_end"}"#)
        #expect(scheduled.status == 200, "change answered \(scheduled.status): \(scheduled.bodyString)")
        ContractTests().expectContract(contract, "post", "/api/subscription/change", scheduled)
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(scheduled.body)) as? [String: Any])
        #expect(answer["subscription_code"] as? String == code && answer["status"] as? String == "non-renewing", "\(answer)")

        // Until the period ends: the monthly plan, its entitlement, the change pending.
        let (_, pending) = try await flow.waitUntil("the pending change in the status") { _, raw in
            (raw["pending_plan_change"] as? [String: Any])?["variantId"] as? String == Self.paystackYearly
        }
        #expect((pending["pending_plan_change"] as? [String: Any])?["effective_at"] as? String == renewsAt, "\(pending)")
        #expect(pending["subscription_code"] as? String == code && pending["active"] as? Bool == true)
        let status = try await stack.request(.get, stack.gateway + "/api/subscription/status", token: flow.token)
        ContractTests().expectContract(contract, "get", "/api/subscription/status", status)
        let next = try await paystackSuccessor(flow, of: code)
        // The new subscription's own webhooks delivered (and a moment to project them) before judging the entitlement.
        _ = try await stack.request(.post, stack.sandbox + "/_sandbox/deliveries/settle")
        try await Task.sleep(for: .seconds(1))
        let kept = try await flow.entitlements().filter { $0["is_active"] as? Bool == true }
        #expect(kept.count == 1 && kept.first?["product_id"] as? String == monthlyProduct, "the monthly plan until the period ends: \(kept)")
        let again = try await change(flow, #"{"variantId":"\#(Self.paystackMonthly)","effective":"period_end"}"#)
        #expect(again.status == 409 && again.bodyString.contains("plan_change_pending"), "\(again.bodyString)")
        // Renewing the old one again would charge twice at the period end.
        let resumed = try await flow.resume(code: code)
        #expect(resumed.status == 409 && resumed.bodyString.contains("plan_change_pending"), "\(resumed.bodyString)")
        ContractTests().expectContract(contract, "post", "/api/subscription/resume", resumed)

        // The period ends: the annual subscription takes its first charge, the monthly one ends.
        let watcher = Task { try await watchStream(flow, until: #""kind":"plan_change""#) }
        try await Task.sleep(for: .milliseconds(500))
        try await flow.sandbox("renew", subscription: next)
        try await flow.sandbox("expire", subscription: code)
        let after: [String: Any] = try await stack.eventually("the entitlement on the yearly plan") { () -> [String: Any]? in
            try await flow.entitlements().first { $0["is_active"] as? Bool == true && $0["product_id"] as? String == yearlyProduct }
        }
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let expires = try #require((after["expires_at"] as? String).flatMap(iso.date(from:)))
        #expect(expires > Date().addingTimeInterval(360 * 86_400), "\(after)")
        let (_, done) = try await flow.waitUntil("the annual subscription in the status") { _, raw in
            raw["subscription_code"] as? String == next && raw["pending_plan_change"] is NSNull
        }
        #expect(done["active"] as? Bool == true, "\(done)")
        let streamed = try await watcher.value
        #expect(streamed.contains(#""kind":"plan_change""#) && streamed.contains(yearlyProduct), "\(streamed.prefix(2000))")

        // Paystack's ledger: the monthly checkout and one annual charge; the
        // monthly subscription never renewed.
        let transactions = try #require(try await paystackCustomer(flow)["transactions"] as? [[String: Any]])
        #expect(transactions.compactMap { $0["amount"] as? Int } == [250_000, 2_500_000], "\(transactions)")

        // In the revenue report the new subscription continues the old one
        // (BillingEvent.replacesSubscriptionID): one contraction when it takes
        // over, never the old one's churn and the new one's new MRR.
        let monthlyMRR = try await monthlyPrice(ofVariant: Self.paystackMonthly)
        let yearlyMRR = try await monthlyPrice(ofVariant: Self.paystackYearly)
        let moved = try await stack.eventually("the change in the report") { () -> [String: Int64]? in
            let now = try await reportFigures("paystack", currency: "NGN")
            return now["contraction_mrr", default: 0] != report["contraction_mrr", default: 0] ? now : nil
        }
        let delta = { (key: String) in moved[key, default: 0] - report[key, default: 0] }
        #expect(abs(Double(delta("contraction_mrr")) - (monthlyMRR - yearlyMRR)) <= 1, "\(report) → \(moved)")
        #expect(delta("new_mrr") == 0 && delta("churned_mrr") == 0 && delta("expansion_mrr") == 0, "\(report) → \(moved)")
        #expect(delta("new_subscriptions") == 0 && delta("churned_subscriptions") == 0, "\(report) → \(moved)")
        #expect(delta("active_subscribers_end") == 0, "\(report) → \(moved)")
    }

    /// A downgrade at period end (annual → monthly) keeps the annual plan and
    /// its entitlement until the period ends.
    @Test func aPaystackDowngradeAtPeriodEndKeepsTheAnnualPlanUntilThen() async throws {
        let stack = try self.stack
        let flow = try await PurchaseFlow.make(stack, provider: "paystack")
        let (code, _) = try await paystackSubscribe(flow, Self.paystackYearly)
        let yearlyProduct = try await productID(ofVariant: Self.paystackYearly)
        let monthlyProduct = try await productID(ofVariant: Self.paystackMonthly)

        let scheduled = try await change(flow, #"{"variantId":"\#(Self.paystackMonthly)","effective":"period_end","proration":"none"}"#)
        #expect(scheduled.status == 200, "change answered \(scheduled.status): \(scheduled.bodyString)")
        _ = try await flow.waitUntil("the pending downgrade") { _, raw in
            (raw["pending_plan_change"] as? [String: Any])?["variantId"] as? String == Self.paystackMonthly
        }
        let next = try await paystackSuccessor(flow, of: code)
        _ = try await stack.request(.post, stack.sandbox + "/_sandbox/deliveries/settle")
        try await Task.sleep(for: .seconds(1))
        let kept = try await flow.entitlements().filter { $0["is_active"] as? Bool == true }
        #expect(kept.count == 1 && kept.first?["product_id"] as? String == yearlyProduct, "the annual plan until the period ends: \(kept)")

        try await flow.sandbox("renew", subscription: next)
        try await flow.sandbox("expire", subscription: code)
        _ = try await stack.eventually("the entitlement on the monthly plan") { () -> Bool? in
            try await flow.entitlements().contains { $0["is_active"] as? Bool == true && $0["product_id"] as? String == monthlyProduct } ? true : nil
        }
    }
}
