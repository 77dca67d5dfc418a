import Entitlements
import BillingModel
import Foundation
import ServiceSettings
import Webhooks
import Testing

/// The sandbox and the Stripe pieces agree: every webhook the emulated
/// Stripe sends through a purchase's life verifies with
/// ``StripeSignatureVerifier`` (real HMAC) and reads with ``StripeEvent``
/// into the values the lifecycle implies.
@Suite("Stripe sandbox against the Stripe pieces")
struct SandboxConformanceTests {
    static let webhookSecret = SandboxPurchaseLife.webhookSecret
    static let start = SandboxPurchaseLife.start

    @Test func everyWebhookVerifiesAndParses() async throws {
        let life = try await SandboxPurchaseLife.run()
        let subscription = life.subscriptionID

        let verifier = StripeSignatureVerifier(secrets: [Secret(Self.webhookSecret)], now: { Self.start })
        var events: [StripeEvent] = []
        for delivery in life.deliveries {
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
