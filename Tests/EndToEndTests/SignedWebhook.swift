import CryptoPrimitives
import Foundation
import TestSupport
import Testing

/// Webhooks as the providers send them, signed with the sandbox's secrets
/// (scripts/stack.sh gives the receivers `ls_sandbox_webhook_secret` and
/// `sk_test_sandbox_secret`), each with a fresh id so none is a duplicate.
struct SignedWebhook {
    let path: String
    let body: [UInt8]
    let headers: [(String, String)]

    static func both() throws -> [SignedWebhook] {
        let lemonSqueezy = try fresh(
            "lemonsqueezy.webhook.subscription_created.synthetic.json", "7c1f3a52-9d0e-4b8a-a3f1-2e5d6c7b8a91", UUID().uuidString.lowercased())
        let paystack = try fresh(
            "paystack.webhook.charge.success.json", "\"id\":302961,", "\"id\":\(UInt64.random(in: 1_000_000_000...9_999_999_999)),")
        return [
            SignedWebhook(
                path: "/api/webhooks/lemonsqueezy", body: lemonSqueezy,
                headers: [
                    ("Content-Type", "application/json"),
                    ("X-Signature", Hex.encode(HMAC.sha256(key: Array("ls_sandbox_webhook_secret".utf8), message: lemonSqueezy))),
                ]),
            SignedWebhook(
                path: "/api/webhooks/paystack", body: paystack,
                headers: [
                    ("Content-Type", "application/json"),
                    ("x-paystack-signature", Hex.encode(HMAC.sha512(key: Array("sk_test_sandbox_secret".utf8), message: paystack))),
                ]),
        ]
    }

    private static func fresh(_ fixture: String, _ original: String, _ replacement: String) throws -> [UInt8] {
        let text = try Fixture.text(fixture)
        try #require(text.contains(original), "\(fixture) no longer holds \(original)")
        return Array(text.replacingOccurrences(of: original, with: replacement).utf8)
    }
}
