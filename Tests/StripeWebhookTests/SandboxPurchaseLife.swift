import Providers
import BillingModel
import CryptoPrimitives
import Foundation
import SandboxKit
import Webhooks
import Synchronization
import Testing

/// One subscription's whole life through the sandbox's emulated Stripe, in
/// process with real HMAC signatures: a Checkout Session with a trial (the
/// body Storefront's checkout sends, encoded by the Stripe pieces), paid,
/// then renewed, failed, recovered, cancelled, resumed, refunded and ended.
/// Returns every webhook as sent.
struct SandboxPurchaseLife {
    final class Transport: WebhookTransport {
        let sent = Mutex<[(headers: [(String, String)], body: [UInt8])]>([])
        func post(url: String, headers: [(String, String)], body: [UInt8]) async throws -> Int {
            sent.withLock { $0.append((headers: headers, body: body)) }
            return 200
        }
    }

    static let secretKey = "sk_test_conformance"
    static let webhookSecret = "whsec_conformance"
    static let start = Date(timeIntervalSince1970: 1_750_000_000)

    let subscriptionID: String
    let deliveries: [(headers: [(String, String)], body: [UInt8])]

    static func run() async throws -> SandboxPurchaseLife {
        let transport = Transport()
        let signer = SandboxSigner(
            hmacSHA256Hex: { Hex.encode(HMAC.sha256(key: $0, message: $1)) }, hmacSHA512Hex: { Hex.encode(HMAC.sha512(key: $0, message: $1)) })
        let app = SandboxApp(
            configuration: SandboxConfiguration(
                stripe: StripeSettings(secretKey: secretKey, webhookSecret: webhookSecret, webhookURL: "http://receiver/stripe")),
            signer: signer, transport: transport, clock: SandboxClock(now: { start }, sleep: { _ in await Task.yield() }))

        func api(_ method: String, _ path: String, _ fields: [StripeField] = []) async -> SandboxResponse {
            await app.handle(
                SandboxRequest(
                    method: method, target: "/stripe/v1" + path,
                    headers: SandboxHeaders([("Authorization", "Bearer \(secretKey)"), ("Content-Type", "application/x-www-form-urlencoded")]),
                    body: Array(StripeFormEncoding.body(fields).utf8)))
        }
        func control(_ path: String, _ body: String = "{}") async -> SandboxResponse {
            await app.handle(SandboxRequest(method: "POST", target: "/_sandbox" + path, body: Array(body.utf8)))
        }

        let session = await api(
            "POST", "/checkout/sessions",
            [
                StripeField("mode", "subscription"),
                StripeField("line_items", .list([.map([StripeField("price", "price_SbxPremiumMonthly"), StripeField("quantity", 1)])])),
                StripeField("success_url", "https://app.example/done"), StripeField("client_reference_id", "user-1"),
                StripeField("metadata", .map([StripeField("storefront_user_id", "user-1"), StripeField("storefront_checkout_id", "chk-1")])),
                StripeField(
                    "subscription_data",
                    .map([StripeField("trial_period_days", 7), StripeField("metadata", .map([StripeField("storefront_user_id", "user-1")]))])),
            ])
        #expect(session.status == 200)
        let sessionID = try #require(session.json?["id"]?.stringValue)
        let paid = await control("/checkouts/stripe/\(sessionID)/pay", #"{"email":"ada@example.com"}"#)
        let subscription = try #require(paid.json?["subscription_id"]?.stringValue)
        for action in ["renew", "payment_failed", "recover", "cancel", "resume", "refund", "expire"] {
            #expect(await control("/stripe/subscriptions/\(subscription)/\(action)").status == 200, "\(action)")
        }
        await app.settleDeliveries()
        return SandboxPurchaseLife(subscriptionID: subscription, deliveries: transport.sent.withLock { $0 })
    }
}
