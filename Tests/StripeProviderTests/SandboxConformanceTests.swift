import CryptoPrimitives
import Foundation
import SandboxKit
import ServiceSettings
import StripeProvider
import Synchronization
import Testing

/// The sandbox and the Stripe pieces agree: every webhook the emulated
/// Stripe sends through a purchase's life verifies with
/// ``StripeSignatureVerifier`` (real HMAC) and reads with ``StripeEvent``
/// into the values the lifecycle implies.
@Suite("Stripe sandbox against the Stripe pieces")
struct SandboxConformanceTests {
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

    @Test func everyWebhookVerifiesAndParses() async throws {
        let transport = Transport()
        let signer = SandboxSigner(
            hmacSHA256Hex: { Hex.encode(HMAC.sha256(key: $0, message: $1)) }, hmacSHA512Hex: { Hex.encode(HMAC.sha512(key: $0, message: $1)) })
        let app = SandboxApp(
            configuration: SandboxConfiguration(
                stripe: StripeSettings(secretKey: Self.secretKey, webhookSecret: Self.webhookSecret, webhookURL: "http://receiver/stripe")),
            signer: signer, transport: transport, clock: SandboxClock(now: { Self.start }, sleep: { _ in await Task.yield() }))

        func api(_ method: String, _ path: String, _ fields: [StripeField] = []) async -> SandboxResponse {
            await app.handle(
                SandboxRequest(
                    method: method, target: "/stripe/v1" + path,
                    headers: SandboxHeaders([("Authorization", "Bearer \(Self.secretKey)"), ("Content-Type", "application/x-www-form-urlencoded")]),
                    body: Array(StripeFormEncoding.body(fields).utf8)))
        }
        func control(_ path: String, _ body: String = "{}") async -> SandboxResponse {
            await app.handle(SandboxRequest(method: "POST", target: "/_sandbox" + path, body: Array(body.utf8)))
        }

        // The body Storefront's checkout would send, encoded by the Stripe pieces.
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

        let verifier = StripeSignatureVerifier(secrets: [Secret(Self.webhookSecret)], now: { Self.start })
        var events: [StripeEvent] = []
        for delivery in transport.sent.withLock({ $0 }) {
            let header = delivery.headers.first { $0.0.lowercased() == StripeSignatureVerifier.headerName }?.1
            try verifier.verify(header: header, body: delivery.body)
            events.append(try StripeEvent.parse(delivery.body))
        }
        #expect(
            events.map(\.rawType) == [
                "customer.subscription.created", "invoice.paid", "checkout.session.completed", "invoice.paid", "customer.subscription.updated",
                "invoice.payment_failed", "customer.subscription.updated", "invoice.paid", "customer.subscription.updated",
                "customer.subscription.updated", "customer.subscription.updated", "charge.refunded", "customer.subscription.deleted",
            ])
        #expect(Set(events.map(\.id)).count == events.count)
        #expect(events.allSatisfy { $0.mode == .test && $0.apiVersion == "2025-03-31.basil" })
        // Everything but the refund is keyed by the subscription; the refund by its payment.
        #expect(events.filter { $0.type != .chargeRefunded }.allSatisfy { $0.orderingKey == subscription })

        let phases = events.compactMap { event -> String? in
            guard case .subscription(let s) = event.payload else { return nil }
            return "\(s.phase)"
        }
        #expect(phases == ["trialing", "renewing", "pastDue", "renewing", "nonRenewing", "renewing", "ended"])
        guard case .checkoutSession(let completed) = events[2].payload, case .invoice(let first) = events[1].payload else {
            Issue.record("unexpected payloads")
            return
        }
        #expect(completed.owner.appUserID == "user-1")
        #expect(completed.owner.checkoutID == "chk-1")
        #expect(completed.subscriptionID == subscription)
        #expect(completed.isPaid)
        #expect(first.isFirstPayment && first.amountPaid == 0)
        #expect(first.owner.appUserID == "user-1")
        guard case .charge(let refunded) = events[11].payload else {
            Issue.record("no refund")
            return
        }
        #expect(refunded.refunded && refunded.amountRefunded == 499)
    }
}
