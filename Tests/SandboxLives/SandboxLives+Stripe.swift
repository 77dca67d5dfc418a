import Foundation
import SandboxKit

extension SandboxLives {
    /// Stripe: `price_SbxPremiumMonthly`, changed to `price_SbxPremiumYearly`.
    public static func stripe(custom: [String: String]) async -> [Life] {
        let provider = "stripe"
        func sub(_ ids: [String: String]) -> String { ids["subscription"] ?? "" }
        let buy: Step = { driver, ids in
            let metadata = driver.custom.sorted { $0.key < $1.key }.flatMap { key, value in
                [("metadata[\(key)]", value), ("subscription_data[metadata][\(key)]", value)]
            }
            let session = await driver.stripe(
                "POST", "/checkout/sessions",
                form: [
                    ("mode", "subscription"), ("line_items[0][price]", "price_SbxPremiumMonthly"), ("line_items[0][quantity]", "1"),
                    ("success_url", "https://app.example/done"), ("cancel_url", "https://app.example/cancel"),
                    ("customer_email", "ada@example.com"),
                ] + metadata)
            let paid = await driver.control("/checkouts/stripe/\(session?["id"]?.stringValue ?? "")/pay")
            ids["subscription"] = paid?["subscription_id"]?.stringValue
            let subscription = await driver.stripe("GET", "/subscriptions/\(sub(ids))")
            ids["item"] = subscription?["items"]?["data"]?[0]?["id"]?.stringValue
        }
        func action(_ name: String, _ body: JSONValue? = nil) -> Step {
            { driver, ids in await driver.control("/stripe/subscriptions/\(sub(ids))/\(name)", body) }
        }
        func update(_ form: @escaping ([String: String]) -> [(String, String)]) -> Step {
            { driver, ids in await driver.stripe("POST", "/subscriptions/\(sub(ids))", form: form(ids)) }
        }
        let cancel = update { _ in [("cancel_at_period_end", "true")] }
        let resume = update { _ in [("cancel_at_period_end", "false")] }
        let yearly = update { ids in
            [("items[0][id]", ids["item"] ?? ""), ("items[0][price]", "price_SbxPremiumYearly"), ("proration_behavior", "always_invoice")]
        }
        func dispute(_ body: JSONValue) -> Step {
            { driver, ids in
                if ids["payment"] == nil { ids["payment"] = await driver.latestPaymentIntent(subscription: sub(ids)) }
                await driver.control("/stripe/payments/\(ids["payment"] ?? "")/dispute", body)
            }
        }
        return [
            await life(provider, "renewal, failure, recovery", custom: custom, [buy, action("renew"), action("payment_failed"), action("recover")]),
            await life(provider, "cancel, resume, cancel, expiry", custom: custom, [buy, cancel, resume, cancel, action("expire")]),
            await life(provider, "plan change, renewal", custom: custom, [buy, yearly, action("renew")]),
            await life(provider, "partial then full refund", custom: custom, [buy, action("refund", ["amount": 100]), action("refund")]),
            await life(
                provider, "dispute lost", custom: custom, [buy, dispute(["action": "create"]), dispute(["action": "close", "status": "lost"])]),
            await life(provider, "failure, unpaid", custom: custom, [buy, action("renew"), action("payment_failed"), action("unpaid")]),
        ]
    }
}

extension SandboxDriver {
    /// The payment intent of the subscription's latest invoice (`payments` is expandable only).
    func latestPaymentIntent(subscription: String) async -> String? {
        guard let invoice = await stripe("GET", "/subscriptions/\(subscription)")?["latest_invoice"]?.stringValue else { return nil }
        let expanded = await stripe("GET", "/invoices/\(invoice)?expand%5B%5D=payments")
        return expanded?["payments"]?["data"]?[0]?["payment"]?["payment_intent"]?.stringValue
    }
}
