import ServiceSettings
import CryptoPrimitives
import Foundation
import BillingModel
import Telemetry
import TestSupport
import Testing
import Webhooks

// What the webhook receiver's unit and integration tests both send: test
// secrets, signed fixture bodies made unique per test, a quiet logger.

/// Secrets the tests sign with (never real ones).
public enum TestSecrets {
    public static let lemonSqueezyWebhook = "ls_receiver_test_webhook_secret_3b7"
    public static let paystackKey = "sk_test_receiver_secret_9e21"

    public static var lemonSqueezyVerifier: LemonSqueezyWebhookVerifier { LemonSqueezyWebhookVerifier(secret: Secret(lemonSqueezyWebhook)) }
    public static var paystackVerifier: PaystackWebhookVerifier { PaystackWebhookVerifier(secretKey: Secret(paystackKey)) }
    public static var bothVerifiers: [any WebhookVerifier] { [lemonSqueezyVerifier, paystackVerifier] }
}

public let quietLogger = Logger(service: "webhook-receiver-test", minimumLevel: .critical)

/// Webhook bodies from the fixtures, made unique per test by replacing the
/// field the dedup key comes from; every other byte is kept.
public enum Bodies {
    public static func fixture(_ name: String) throws -> String {
        try Fixture.text(name)
    }

    /// A `subscription_created` delivery with a fresh `meta.webhook_id`.
    public static func lemonSqueezy() throws -> (body: [UInt8], webhookID: String) {
        let text = try fixture("lemonsqueezy.webhook.subscription_created.synthetic.json")
        let id = UUID().uuidString.lowercased()
        let original = "7c1f3a52-9d0e-4b8a-a3f1-2e5d6c7b8a91"
        try #require(text.contains(original))
        return (Array(text.replacingOccurrences(of: original, with: id).utf8), id)
    }

    /// A `charge.success` delivery with a fresh `data.id`.
    public static func paystack() throws -> (body: [UInt8], chargeID: String) {
        let text = try fixture("paystack.webhook.charge.success.json")
        let id = String(UInt64.random(in: 1_000_000_000...9_999_999_999))
        let original = "\"id\":302961,"
        try #require(text.contains(original))
        return (Array(text.replacingOccurrences(of: original, with: "\"id\":\(id),").utf8), id)
    }
}

/// Signs like the providers do.
public enum Signer {
    public static func lemonSqueezy(_ body: [UInt8], secret: String = TestSecrets.lemonSqueezyWebhook) -> String {
        Hex.encode(HMAC.sha256(key: Array(secret.utf8), message: body))
    }

    public static func paystack(_ body: [UInt8], key: String = TestSecrets.paystackKey) -> String {
        Hex.encode(HMAC.sha512(key: Array(key.utf8), message: body))
    }

    /// The signature header of each provider these tests sign for.
    static let signatures: [Provider: (name: String, sign: @Sendable ([UInt8]) -> String)] = [
        .lemonsqueezy: ("X-Signature", { lemonSqueezy($0) }),
        .paystack: ("x-paystack-signature", { paystack($0) }),
    ]

    /// The providers these tests sign for, in registration order (a test
    /// target may register a provider of its own in the same process).
    public static var providers: [Provider] { Provider.allCases.filter { signatures[$0] != nil } }

    public static func headers(_ provider: Provider, _ body: [UInt8]) -> [(String, String)] {
        guard let signature = signatures[provider] else { preconditionFailure("no test signer for \(provider)") }
        return [("Content-Type", "application/json"), (signature.name, signature.sign(body))]
    }
}
