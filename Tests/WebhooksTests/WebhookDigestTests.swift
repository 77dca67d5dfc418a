import Foundation
import BillingModel
import TestSupport
import Testing
import Webhooks

/// The dedup keys' SHA-256 is Crypto's, checked against the `openssl` tool.
@Suite struct WebhookDigestTests {
    @Test func dedupKeysUseCryptoSHA256() async throws {
        let body = try Fixture.bytes("paystack.webhook.subscription.not_renew.json")
        let key = PaystackWebhook.dedupKey(body: body)
        #expect(key.hasPrefix("paystack:sha256:"))
        let hex = try await OpenSSLDigest.sha256Hex(body)
        #expect(key == "paystack:sha256:\(hex)")
        #expect(ProviderWebhooks.dedupKey(.paystack, body: body) == key)
        let order = try Fixture.bytes("lemonsqueezy.webhook.order_created.with_custom_data.json")
        let envelope = ProviderWebhooks.envelope(.lemonsqueezy, body: order, receivedAt: Date(timeIntervalSince1970: 0))
        #expect(envelope.id == LemonSqueezyWebhook.dedupKey(body: order))
        #expect(envelope.id == ProviderWebhooks.dedupKey(.lemonsqueezy, body: order, sha256Hex: WebhookDigest.sha256Hex))
    }
}
