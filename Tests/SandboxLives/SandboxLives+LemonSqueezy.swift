import Foundation
import SandboxKit

extension SandboxLives {
    /// Lemon Squeezy: variant 2 is Premium monthly, 3 Premium yearly. Lemon
    /// Squeezy documents no dispute webhook (a lost chargeback reaches the
    /// store as a refund), so its lives have none.
    public static func lemonSqueezy(custom: [String: String]) async -> [Life] {
        let provider = "lemonsqueezy"
        func sub(_ ids: [String: String]) -> String { ids["subscription"] ?? "" }
        let buy: Step = { driver, ids in
            let checkout = await driver.lemonSqueezy(
                "POST", "/checkouts",
                [
                    "data": [
                        "type": "checkouts",
                        "attributes": [
                            "checkout_data": ["email": "buyer@example.com", "custom": customJSON(driver.custom)], "test_mode": true,
                        ],
                        "relationships": [
                            "store": ["data": ["type": "stores", "id": "1"]], "variant": ["data": ["type": "variants", "id": "2"]],
                        ],
                    ]
                ])
            let id = checkout?["data"]?["id"]?.stringValue ?? ""
            let paid = await driver.control("/checkouts/lemonsqueezy/\(id)/pay")
            ids["subscription"] = paid?["subscription_id"]?.intValue.map(String.init)
            ids["order"] = paid?["order_id"]?.intValue.map(String.init) ?? "1"
        }
        func action(_ name: String, _ body: JSONValue? = nil) -> Step {
            { driver, ids in await driver.control("/lemonsqueezy/subscriptions/\(sub(ids))/\(name)", body) }
        }
        func patch(_ attributes: JSONValue) -> Step {
            { driver, ids in
                await driver.lemonSqueezy(
                    "PATCH", "/subscriptions/\(sub(ids))",
                    ["data": ["type": "subscriptions", "id": .string(sub(ids)), "attributes": attributes]])
            }
        }
        let cancel: Step = { driver, ids in
            await driver.lemonSqueezy("DELETE", "/subscriptions/\(sub(ids))")
        }
        func refundOrder(_ amount: Int?) -> Step {
            { driver, ids in await driver.control("/lemonsqueezy/orders/\(ids["order"] ?? "")/refund", amount.map { ["amount": .int($0)] }) }
        }
        return [
            await life(provider, "renewal, failure, recovery", custom: custom, [buy, action("renew"), action("payment_failed"), action("recover")]),
            await life(
                provider, "cancel, resume, cancel, expiry", custom: custom, [buy, cancel, patch(["cancelled": false]), cancel, action("expire")]),
            await life(provider, "plan change, renewal", custom: custom, [buy, patch(["variant_id": 3]), action("renew")]),
            await life(provider, "pause, unpause", custom: custom, [buy, patch(["pause": ["mode": "free"]]), patch(["pause": nil])]),
            await life(provider, "partial then full refund", custom: custom, [buy, refundOrder(100), refundOrder(nil)]),
            await life(
                provider, "renewal refunded, unpaid", custom: custom,
                [buy, action("renew"), action("refund"), action("payment_failed"), action("unpaid")]),
        ]
    }
}
