import Foundation
import Testing
@testable import SandboxKit

/// The sandbox's `POST /subscription` (Paystack "Create Subscription"), which
/// a plan change at period end uses: the customer's saved card, no charge
/// before `start_date`, `subscription.create` without `email_token`, and the
/// refusals a real integration meets.
@Suite struct PaystackCreateSubscriptionTests {
    @Test func aFutureStartDateChargesNothingUntilThen() async throws {
        let h = Harness()
        let (_, code) = try #require(await h.psSubscribe(email: "new-plan@example.com"))
        let old = try #require(await h.ps("GET", "/subscription/\(code)").json?["data"])
        let customer = try #require(old["customer"]?["customer_code"]?.stringValue)
        let authorization = try #require(old["authorization"]?["authorization_code"]?.stringValue)
        let start = try #require(old["next_payment_date"]?.stringValue)
        let before = await h.mark()

        let created = await h.ps(
            "POST", "/subscription",
            body: [
                "customer": .string(customer), "plan": "PLN_sbxpremannual1", "authorization": .string(authorization), "start_date": .string(start),
            ])
        #expect(created.status == 200 && created.json?["message"]?.stringValue == "Subscription successfully created")
        let data = try #require(created.json?["data"])
        let newCode = try #require(data["subscription_code"]?.stringValue)
        #expect(data["status"]?.stringValue == "active" && data["email_token"]?.stringValue != nil)
        #expect(data["plan"]?.intValue == 102 && data["customer"]?.intValue != nil, "ids, as Paystack's example answers")

        let fetched = try #require(await h.ps("GET", "/subscription/\(newCode)").json?["data"])
        #expect(fetched["next_payment_date"]?.stringValue == start, "the first charge is due at start_date")
        #expect(fetched["authorization"]?["authorization_code"]?.stringValue == authorization)
        #expect(fetched["payments_count"]?.intValue == 0)
        let sent = await h.delivered(after: before)
        #expect(sent.map(\.psEvent) == ["subscription.create"])
        #expect(sent.first?.json["data"]?["email_token"] == nil)

        // At start_date the cycle runs: invoice, charge of the annual amount, a year on.
        let renewed = await h.control("POST", "/paystack/subscriptions/\(newCode)/renew")
        #expect(renewed.status == 200)
        let charges = await h.delivered(after: before).filter { $0.psEvent == "charge.success" }
        #expect(charges.count == 1 && charges.first?.json["data"]?["amount"]?.intValue == 2_500_000)
        let after = try #require(await h.ps("GET", "/subscription/\(newCode)").json?["data"])
        #expect(after["next_payment_date"]?.stringValue != start)
    }

    @Test func withoutAStartDateTheFirstChargeIsNow() async throws {
        let h = Harness()
        _ = try #require(await h.psSubscribe(email: "at-once@example.com"))
        let before = await h.mark()
        let created = await h.ps("POST", "/subscription", body: ["customer": "at-once@example.com", "plan": "PLN_sbxbasicmonth1"])
        #expect(created.status == 200)
        let sent = await h.delivered(after: before).map(\.psEvent)
        #expect(sent == ["subscription.create", "invoice.create", "charge.success", "invoice.update"], "\(sent)")
    }

    @Test func refusals() async throws {
        let h = Harness()
        _ = try #require(await h.psSubscribe(email: "refused@example.com"))
        let cases: [(JSONValue, Int, String)] = [
            (["customer": "nobody@example.com", "plan": "PLN_sbxpremannual1"], 404, "Customer not found"),
            (["customer": "refused@example.com", "plan": "PLN_missing"], 404, "Plan not found"),
            (["customer": "refused@example.com", "plan": "PLN_sbxpremannual1", "authorization": "AUTH_other"], 404, "Authorization not found"),
            (["customer": "refused@example.com", "plan": "PLN_sbxpremannual1", "start_date": "next month"], 400, "start_date"),
            (["plan": "PLN_sbxpremannual1"], 400, "Customer"),
        ]
        for (body, status, message) in cases {
            let refused = await h.ps("POST", "/subscription", body: body)
            #expect(refused.status == status && refused.json?["message"]?.stringValue?.contains(message) == true, "\(body)")
        }
        #expect(await h.ps("GET", "/subscription").json?["data"]?.arrayValue?.count == 1, "refusals created nothing")
    }
}
