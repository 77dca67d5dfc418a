@testable import SeedModels
import Foundation
import HTTPClient
import TestSupport
import Testing

/// Plan changes through the gateway (docs/plan-changes.md), on a stack whose
/// entitlements file names product groups (deploy/config/entitlements.example.json):
/// monthly → annual now with proration, for Lemon Squeezy and Stripe, checked
/// in its preview (what Stripe then charges), the entitlement, the status
/// answer, the outgoing change and its cause, and `storefront report` (a
/// contraction, not churn and a new subscription); and each refusal, the
/// preview's too, which changes nothing.
@Suite(.serialized, .liveStack(["ENTITLEMENTS_FILE": exampleEntitlementsFile]))
struct PlanChangeEndToEndTests {
    var stack: LiveStack { get throws { try LiveStack.required() } }

    /// The yearly plan of the group each provider's first subscription product (monthly) is in.
    static let yearly = ["lemonsqueezy": "ls_3", "stripe": "st_price_SbxPremiumYearly"]

    func change(_ flow: PurchaseFlow, _ body: String, key: String? = nil) async throws -> HTTPClientResponse {
        let headers = key.map { [("Idempotency-Key", $0)] } ?? []
        return try await flow.stack.request(.post, flow.stack.gateway + "/api/subscription/change", token: flow.token, json: body, headers: headers)
    }

    /// The catalog id the entitlement names for `variantID` (`/api/products`' `id` of that variant).
    func productID(ofVariant variantID: String) async throws -> String {
        let response = try await stack.request(.get, stack.gateway + "/api/products")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let items = try #require((list["products"] as? [String: Any])?["data"] as? [[String: Any]])
        return try #require(items.first { $0["variantId"] as? String == variantID }?["id"] as? String)
    }

    /// The live stream's answers from now until one contains `text` (or 40 s pass), each poll `after` the last.
    func watchStream(_ flow: PurchaseFlow, until text: String) async throws -> String {
        var seen = "", cursor: String?
        let deadline = ContinuousClock.now + .seconds(40)
        while ContinuousClock.now < deadline, !seen.contains(text) {
            let query = cursor.flatMap { $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) }.map { "&after=\($0)" } ?? ""
            let response = try await flow.stack.request(.get, flow.stack.gateway + "/api/entitlements/stream?wait=5\(query)", token: flow.token)
            let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            cursor = (object?["cursor"] as? String) ?? cursor
            seen += response.bodyString
        }
        return seen
    }

    @Test(arguments: ["lemonsqueezy", "stripe"])
    func monthlyToAnnualNowWithProrationMovesTheEntitlementWithCausePlanChange(provider: String) async throws {
        let stack = try self.stack
        let contract = try OpenAPIContract.repository()
        let flow = try await PurchaseFlow.make(stack, provider: provider)
        let monthly = try await flow.subscriptionProduct()
        _ = try await flow.buySubscription()
        let before = try #require(try await flow.entitlements().first { $0["is_active"] as? Bool == true })
        #expect(before["product_id"] as? String == monthly.productID)
        let (_, raw) = try await flow.status()
        let code = try #require(raw["subscription_code"] as? String)

        // The live stream is watched from before the change (a poll without
        // `after` answers only changes that come while it waits).
        let watcher = Task { try await watchStream(flow, until: #""kind":"plan_change""#) }
        try await Task.sleep(for: .milliseconds(500))

        // The preview first: what the change will charge, nothing changed.
        let yearly = try #require(Self.yearly[provider])
        let previewed = try await preview(flow, "variantId=\(yearly)&effective=now&proration=prorate")
        #expect(previewed.status == 200, "preview answered \(previewed.status): \(previewed.bodyString)")
        ContractTests().expectContract(contract, "get", "/api/subscription/change/preview", previewed)
        let quote = try #require(try JSONSerialization.jsonObject(with: Data(previewed.body)) as? [String: Any])
        #expect(quote["subscription_code"] as? String == code && quote["variantId"] as? String == yearly && quote["currency"] as? String == "USD")
        let exact = quote["exact"] as? Bool == true
        let dueNow = (quote["due_now"] as? [String: Any])?["amount"] as? Int
        let yearlyPrice = try await monthlyPrice(ofVariant: yearly) * 12
        let next = quote["next"] as? [String: Any]
        #expect(abs(((next?["amount"] as? NSNumber)?.doubleValue ?? 0) - yearlyPrice) < 0.5, "the year at the new price next: \(quote)")
        if provider == "stripe" {
            // Stripe's own preview: the year less the unused month, now.
            #expect(exact && (4500..<4999).contains(dueNow ?? 0), "\(quote)")
        } else {
            // Lemon Squeezy prorates by itself, so only the new price is known.
            #expect(!exact && quote["due_now"] is NSNull && next?["at"] is NSNull, "\(quote)")
        }
        #expect(try await flow.entitlements().contains { $0["is_active"] as? Bool == true && $0["product_id"] as? String == monthly.productID })
        let report = try await reportFigures(provider)

        // Changed now, prorated; the same Idempotency-Key again acts once. A
        // second after the purchase at least: the providers' times are whole
        // seconds, so a change in the purchase's own second is, to the
        // report, the new plan bought (one point per instant).
        try await Task.sleep(for: .seconds(1))
        let body = #"{"variantId":"\#(yearly)","effective":"now","proration":"prorate"}"#
        let key = "e2e-plan-\(flow.subject)"
        let changed = try await change(flow, body, key: key)
        #expect(changed.status == 200, "change answered \(changed.status): \(changed.bodyString)")
        ContractTests().expectContract(contract, "post", "/api/subscription/change", changed)
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(changed.body)) as? [String: Any])
        #expect(answer["variantId"] as? String == yearly && answer["subscription_code"] as? String == code)
        let again = try await change(flow, body, key: key)
        #expect(again.status == 200 && again.headers["Idempotent-Replayed"] == "true" && again.body == changed.body)

        // The entitlement follows the yearly plan, renewing about a year from now.
        let yearlyProduct = try await productID(ofVariant: yearly)
        let after: [String: Any] = try await stack.eventually("the entitlement on the yearly plan") { () -> [String: Any]? in
            try await flow.entitlements().first { $0["is_active"] as? Bool == true && $0["product_id"] as? String == yearlyProduct }
        }
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let expires = try #require((after["expires_at"] as? String).flatMap(iso.date(from:)))
        #expect(expires > Date().addingTimeInterval(300 * 86_400), "\(after)")

        // The status answer shows the same subscription, active, on the new plan.
        let (seed, status) = try await flow.status()
        #expect(seed.active && status["subscription_code"] as? String == code)
        #expect((status["entitlements"] as? [[String: Any]])?.contains { $0["product_id"] as? String == yearlyProduct } == true)

        // The outgoing change says why.
        let streamed = try await watcher.value
        #expect(streamed.contains(#""kind":"plan_change""#) && streamed.contains(yearlyProduct), "\(streamed.prefix(2000))")

        // What the preview said is what Stripe charged.
        if provider == "stripe", exact, let dueNow {
            #expect(try await stripeLatestInvoiceAmount(flow, subscription: code) == dueNow)
        }

        // In the revenue report the change moves this subscription's MRR from
        // the month's price to the year's twelfth: a contraction, never churn
        // and a new subscription.
        let monthlyMRR = try await monthlyPrice(ofVariant: monthly.variantID)
        let moved = try await reportAfterContraction(provider, from: report, subscription: code)
        let delta = { (key: String) in moved[key, default: 0] - report[key, default: 0] }
        let trail = try await revenueTrail(provider, subscription: code)
        #expect(abs(Double(delta("contraction_mrr")) - (monthlyMRR - yearlyPrice / 12)) <= 1, "\(report) → \(moved)\n\(trail)")
        #expect(delta("new_mrr") == 0 && delta("churned_mrr") == 0 && delta("expansion_mrr") == 0, "\(report) → \(moved)\n\(trail)")
        #expect(delta("active_subscribers_end") == 0 && delta("churned_subscriptions") == 0, "\(report) → \(moved)\n\(trail)")

        // Back to the yearly plan it is on: refused, nothing changes.
        let unchanged = try await change(flow, body)
        #expect(unchanged.status == 422 && unchanged.bodyString.contains(#""code":"plan_unchanged""#), "\(unchanged.bodyString)")
        ContractTests().expectContract(contract, "post", "/api/subscription/change", unchanged)
        let unchangedPreview = try await preview(flow, "variantId=\(yearly)")
        #expect(unchangedPreview.status == 422 && unchangedPreview.bodyString.contains(#""code":"plan_unchanged""#))
        ContractTests().expectContract(contract, "get", "/api/subscription/change/preview", unchangedPreview)
    }

    /// Stripe monthly → annual at period end: the monthly plan (and its
    /// entitlement) stays, the status answer shows the pending change, a second
    /// change is refused, and at the renewal the annual plan takes over.
    @Test func stripeMonthlyToAnnualAtPeriodEndWaitsForTheRenewal() async throws {
        let stack = try self.stack
        let contract = try OpenAPIContract.repository()
        let flow = try await PurchaseFlow.make(stack, provider: "stripe")
        let monthly = try await flow.subscriptionProduct()
        _ = try await flow.buySubscription()
        let (_, raw) = try await flow.status()
        let code = try #require(raw["subscription_code"] as? String)
        let renewsAt = try #require(raw["renews_at"] as? String)

        let yearly = "st_price_SbxPremiumYearly"
        let report = try await reportFigures("stripe")
        let scheduled = try await change(flow, #"{"variantId":"\#(yearly)","effective":"period_end"}"#)
        #expect(scheduled.status == 200, "change answered \(scheduled.status): \(scheduled.bodyString)")
        ContractTests().expectContract(contract, "post", "/api/subscription/change", scheduled)
        let (_, pending) = try await flow.waitUntil("the pending change in the status") { _, raw in
            (raw["pending_plan_change"] as? [String: Any])?["variantId"] as? String == yearly
        }
        #expect((pending["pending_plan_change"] as? [String: Any])?["effective_at"] as? String == renewsAt)
        let status = try await stack.request(.get, stack.gateway + "/api/subscription/status", token: flow.token)
        ContractTests().expectContract(contract, "get", "/api/subscription/status", status)
        #expect(try await flow.entitlements().contains { $0["is_active"] as? Bool == true && $0["product_id"] as? String == monthly.productID })
        let again = try await change(flow, #"{"variantId":"\#(yearly)","effective":"period_end"}"#)
        #expect(again.status == 409 && again.bodyString.contains("plan_change_pending"), "\(again.bodyString)")

        // The period ends: Stripe renews on the annual plan.
        let watcher = Task { try await watchStream(flow, until: #""kind":"plan_change""#) }
        try await Task.sleep(for: .milliseconds(500))
        try await flow.sandbox("renew", subscription: code)
        let yearlyProduct = try await productID(ofVariant: yearly)
        _ = try await stack.eventually("the entitlement on the yearly plan") { () -> Bool? in
            try await flow.entitlements().contains { $0["is_active"] as? Bool == true && $0["product_id"] as? String == yearlyProduct } ? true : nil
        }
        let (_, after) = try await flow.waitUntil("no change pending") { _, raw in raw["pending_plan_change"] is NSNull }
        #expect(after["subscription_code"] as? String == code)
        let streamed = try await watcher.value
        #expect(streamed.contains(#""kind":"plan_change""#), "\(streamed.prefix(2000))")

        // In the revenue report the MRR moves at the renewal, as one contraction.
        let monthlyMRR = try await monthlyPrice(ofVariant: monthly.variantID)
        let yearlyMRR = try await monthlyPrice(ofVariant: yearly)
        let moved = try await reportAfterContraction("stripe", from: report, subscription: code)
        let delta = { (key: String) in moved[key, default: 0] - report[key, default: 0] }
        // One contraction: a reconciler snapshot fetched in the renewal's
        // second, before it, once put the monthly plan back in between
        // (contraction 164, expansion 82; PlanChangeRevenueTests).
        let trail = try await revenueTrail("stripe", subscription: code)
        #expect(abs(Double(delta("contraction_mrr")) - (monthlyMRR - yearlyMRR)) <= 1, "\(report) → \(moved)\n\(trail)")
        #expect(delta("expansion_mrr") == 0 && delta("mrr_end") < 0, "\(report) → \(moved)\n\(trail)")
        #expect(delta("new_mrr") == 0 && delta("churned_mrr") == 0, "\(report) → \(moved)")
        #expect(delta("churned_subscriptions") == 0 && delta("active_subscribers_end") == 0, "\(report) → \(moved)")
    }

    /// A Stripe downgrade at period end (Team yearly → Premium yearly): the
    /// higher tier stays, and so does its entitlement, until the renewal.
    @Test func aStripeDowngradeAtPeriodEndKeepsTheHigherTierUntilThen() async throws {
        let stack = try self.stack
        let flow = try await PurchaseFlow.make(stack, provider: "stripe")
        let team = "st_price_SbxTeamYearly", premium = "st_price_SbxPremiumYearly"
        let teamProduct = try await productID(ofVariant: team)
        try await flow.pay(checkoutURL: try await flow.createCheckout(productID: teamProduct, variantID: team))
        _ = try await flow.waitUntil("the team subscription active") { seed, _ in seed.active }
        let (_, raw) = try await flow.status()
        let code = try #require(raw["subscription_code"] as? String)

        let scheduled = try await change(flow, #"{"variantId":"\#(premium)","effective":"period_end","proration":"none"}"#)
        #expect(scheduled.status == 200, "change answered \(scheduled.status): \(scheduled.bodyString)")
        _ = try await flow.waitUntil("the pending downgrade") { _, raw in
            (raw["pending_plan_change"] as? [String: Any])?["variantId"] as? String == premium
        }
        let kept = try await flow.entitlements().filter { $0["is_active"] as? Bool == true }
        #expect(kept.count == 1 && kept.first?["product_id"] as? String == teamProduct, "the higher tier until the period ends: \(kept)")

        try await flow.sandbox("renew", subscription: code)
        let premiumProduct = try await productID(ofVariant: premium)
        _ = try await stack.eventually("the entitlement on premium") { () -> Bool? in
            try await flow.entitlements().contains { $0["is_active"] as? Bool == true && $0["product_id"] as? String == premiumProduct } ? true : nil
        }
    }

    @Test func refusalsChangeNothing() async throws {
        let stack = try self.stack
        let contract = try OpenAPIContract.repository()
        let flow = try await PurchaseFlow.make(stack, provider: "lemonsqueezy")
        let path = "/api/subscription/change"

        // Nothing to change yet.
        let none = try await change(flow, #"{"variantId":"ls_3"}"#)
        #expect(none.status == 404 && none.bodyString.contains("subscription_not_found"), "\(none.bodyString)")
        ContractTests().expectContract(contract, "post", path, none)

        _ = try await flow.buySubscription()
        let (_, raw) = try await flow.status()
        let code = try #require(raw["subscription_code"] as? String)
        let cases: [(String, Int, String)] = [
            (#"{"variantId":"ls_9"}"#, 422, "plan_not_in_product_group"),
            (#"{"variantId":"ls_3","effective":"period_end"}"#, 422, "plan_change_timing_unsupported"),
            (#"{"variantId":"ls_3","effective":"later"}"#, 400, "invalid_effective"),
        ]
        for (body, status, code) in cases {
            let refused = try await change(flow, body)
            #expect(refused.status == status && refused.bodyString.contains(#""code":"\#(code)""#), "\(body): \(refused.bodyString)")
            ContractTests().expectContract(contract, "post", path, refused)
        }
        // The preview refuses alike, and the gateway names its one method.
        let previewCases: [(String, Int, String)] = [
            ("variantId=ls_9", 422, "plan_not_in_product_group"), ("variantId=ls_3&effective=period_end", 422, "plan_change_timing_unsupported"),
            ("variantId=ls_3&effective=later", 400, "invalid_effective"),
        ]
        for (query, status, code) in previewCases {
            let refused = try await preview(flow, query)
            #expect(refused.status == status && refused.bodyString.contains(#""code":"\#(code)""#), "\(query): \(refused.bodyString)")
            ContractTests().expectContract(contract, "get", "/api/subscription/change/preview", refused)
        }
        let trace = try await stack.request(
            .init(rawValue: "TRACE"), stack.gateway + "/api/subscription/change/preview?variantId=ls_3", token: flow.token)
        #expect(trace.status == 405 && trace.headers["Allow"] == "GET, HEAD", "\(trace.status) \(trace.headers)")

        // Someone else cannot change it.
        let other = try await PurchaseFlow.make(stack, provider: "lemonsqueezy")
        let foreign = try await change(other, #"{"variantId":"ls_3","subscription_code":"\#(code)"}"#)
        #expect(foreign.status == 404, "\(foreign.bodyString)")

        // A cancelled subscription keeps its plan.
        let cancelled = try await flow.cancel(code: code, emailToken: nil)
        #expect(cancelled.status == 200)
        _ = try await flow.waitUntil("cancelled") { _, raw in raw["cancel_at_period_end"] as? Bool == true }
        let refused = try await change(flow, #"{"variantId":"ls_3"}"#)
        #expect(refused.status == 409 && refused.bodyString.contains("subscription_not_active"), "\(refused.bodyString)")
        ContractTests().expectContract(contract, "post", path, refused)
        #expect(try await flow.entitlements().allSatisfy { $0["product_id"] as? String != "ls_2.3" })
    }
}

/// The example entitlements file, whose `product_groups` hold the sandbox's monthly and yearly plans.
let exampleEntitlementsFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("deploy/config/entitlements.example.json").path
