@testable import SeedModels
import Foundation
import HTTPClient
import TestSupport
import Testing

/// Plan changes through the gateway (docs/plan-changes.md), on a stack whose
/// entitlements file names product groups (deploy/config/entitlements.example.json):
/// monthly → annual now with proration, for Lemon Squeezy and Stripe, checked
/// in the entitlement, the status answer, the outgoing change and its cause;
/// and each refusal, which changes nothing.
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

        // Changed now, prorated; the same Idempotency-Key again acts once.
        let yearly = try #require(Self.yearly[provider])
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
        let streamed = try await stack.eventually("the plan change on the stream") { () -> String? in
            let response = try await stack.request(.get, stack.gateway + "/api/entitlements/stream?wait=2", token: flow.token)
            return response.bodyString.contains(#""kind":"plan_change""#) ? response.bodyString : nil
        }
        #expect(streamed.contains(yearlyProduct))

        // Back to the yearly plan it is on: refused, nothing changes.
        let unchanged = try await change(flow, body)
        #expect(unchanged.status == 422 && unchanged.bodyString.contains(#""code":"plan_unchanged""#), "\(unchanged.bodyString)")
        ContractTests().expectContract(contract, "post", "/api/subscription/change", unchanged)
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
