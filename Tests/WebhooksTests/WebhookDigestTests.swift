import Foundation
import BillingModel
import TestSupport
import Testing
import JSONCodec
@testable import Webhooks

/// The dedup keys' SHA-256 is Crypto's, checked against the `openssl` tool.
@Suite struct WebhookDigestTests {
    @Test func dedupKeysUseCryptoSHA256() async throws {
        let body = try Fixture.bytes("paystack.webhook.subscription.not_renew.json")
        let key = PaystackWebhook.dedupKey(root: try? JSONValue.parse(body), body: body)
        #expect(key.hasPrefix("paystack:sha256:"))
        let hex = try await OpenSSLDigest.sha256Hex(body)
        #expect(key == "paystack:sha256:\(hex)")
        #expect(ProviderWebhooks.read(.paystack, body: body, receivedAt: .distantPast).envelope.id == key)
        let order = try Fixture.bytes("lemonsqueezy.webhook.order_created.with_custom_data.json")
        let envelope = ProviderWebhooks.read(.lemonsqueezy, body: order, receivedAt: Date(timeIntervalSince1970: 0)).envelope
        #expect(envelope.id == LemonSqueezyWebhook.dedupKey(root: try? JSONValue.parse(order), body: order))
    }
}
