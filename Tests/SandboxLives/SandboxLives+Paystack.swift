import Foundation
import SandboxKit

extension SandboxLives {
    /// Paystack: plan `PLN_sbxpremmonth01`. A resume (`/subscription/enable`)
    /// sends no webhook, and Paystack documents no pause, so neither is here;
    /// a plan change is a new subscription (not one purchase's life).
    public static func paystack(custom: [String: String]) async -> [Life] {
        let provider = "paystack"
        let buy: Step = { driver, ids in
            let started = await driver.paystack(
                "POST", "/transaction/initialize",
                [
                    "email": "payer@example.com", "amount": "500000", "plan": "PLN_sbxpremmonth01", "metadata": customJSON(driver.custom),
                    "callback_url": "https://app.example/done",
                ])
            let access = started?["data"]?["access_code"]?.stringValue ?? ""
            let paid = await driver.control("/checkouts/paystack/\(access)/pay")
            ids["reference"] = paid?["reference"]?.stringValue
            ids["subscription"] = paid?["subscription_code"]?.stringValue
        }
        func action(_ name: String, _ body: JSONValue? = nil) -> Step {
            { driver, ids in await driver.control("/paystack/subscriptions/\(ids["subscription"] ?? "")/\(name)", body) }
        }
        func transaction(_ name: String, _ body: JSONValue? = nil) -> Step {
            { driver, ids in await driver.control("/paystack/transactions/\(ids["reference"] ?? "")/\(name)", body) }
        }
        return [
            await life(provider, "renewal, failure, recovery", custom: custom, [buy, action("renew"), action("payment_failed"), action("recover")]),
            await life(provider, "cancel, expiry", custom: custom, [buy, action("renew"), action("cancel"), action("expire")]),
            await life(provider, "expiry without cancel", custom: custom, [buy, action("expire", ["status": "complete"])]),
            await life(
                provider, "partial then full refund", custom: custom, [buy, transaction("refund", ["amount": 100_000]), transaction("refund")]),
            await life(
                provider, "dispute lost", custom: custom,
                [
                    buy, transaction("dispute", ["action": "create"]),
                    transaction("dispute", ["action": "resolve", "resolution": "merchant-accepted"]),
                ]),
            await life(
                provider, "dispute won", custom: custom,
                [buy, transaction("dispute", ["action": "create"]), transaction("dispute", ["action": "resolve", "resolution": "declined"])]),
        ]
    }
}
