import BillingModel
import Foundation
import JSONCodec
import Providers
import SandboxKit
import SandboxServer
import Testing

/// ``LemonSqueezyClient/refund(_:)`` and ``PaystackClient/refund(_:)``
/// against the provider sandbox on a real port: the request each sends, the
/// answer read back, a refusal's reason, and the refund webhook that follows.
@Suite struct ProviderRefundTests {
    static func events(_ sandbox: LiveSandbox, _ provider: SandboxProvider) async -> [(name: String, body: JSONCodec.JSONValue)] {
        await sandbox.server.app.settleDeliveries()
        return await sandbox.server.app.deliveries(provider: provider).compactMap { delivery in
            (try? JSONCodec.JSONValue.parse(delivery.body)).map { (delivery.eventName, $0) }
        }
    }

    @Test func lemonSqueezyRefundsAnOrderInPartsThenRefusesMoreThanIsLeft() async throws {
        try await LiveSandbox.with { sandbox in
            let client = sandbox.lemonSqueezy()
            let checkout = try await client.createCheckout(
                CheckoutRequest(variantID: "1", email: nil, appUserID: "user-r", checkoutID: UUID().uuidString, ownershipProof: "p"))
            let paid = try await sandbox.control("/checkouts/lemonsqueezy/\(checkout.providerCheckoutID)/pay", ["email": "r@example.com"])
            let orderID = try #require(paid["order_id"]?.string)
            let order = try await sandbox.rawGet("/lemonsqueezy/v1/orders/\(orderID)", key: LiveSandbox.lsKey)
            let total = try #require(order["data", "attributes", "total"]?.int64)

            let part = try await client.refund(
                RefundRequest(purchaseType: .order, purchaseID: orderID, paymentID: orderID, amount: 100, idempotencyKey: "k1"))
            #expect(part.provider == .lemonsqueezy && part.id == orderID && part.status == "partial_refund" && part.amount == 100)
            let after = try await sandbox.rawGet("/lemonsqueezy/v1/orders/\(orderID)", key: LiveSandbox.lsKey)
            #expect(after["data", "attributes", "refunded_amount"]?.int64 == 100)

            let tooMuch = await #expect(throws: ProviderError.self) {
                try await client.refund(
                    RefundRequest(purchaseType: .order, purchaseID: orderID, paymentID: orderID, amount: total, idempotencyKey: "k2"))
            }
            #expect(tooMuch?.kind == .validation && tooMuch?.status == 422 && tooMuch?.message.isEmpty == false, "\(String(describing: tooMuch))")

            let rest = try await client.refund(
                RefundRequest(purchaseType: .order, purchaseID: orderID, paymentID: orderID, amount: nil, idempotencyKey: "k3"))
            #expect(rest.status == "refunded")
            let refunds = await Self.events(sandbox, .lemonSqueezy).filter { $0.name == "order_refunded" }
            #expect(refunds.count == 2)
            #expect(refunds.last?.body["data", "attributes", "refunded_amount"]?.int64 == total)

            let unsafe = await #expect(throws: ProviderError.self) {
                try await client.refund(RefundRequest(purchaseType: .order, purchaseID: "x", paymentID: "1/../2", amount: nil, idempotencyKey: "k"))
            }
            #expect(unsafe?.kind == .validation && unsafe?.status == nil)
        }
    }

    @Test func lemonSqueezyRefundsASubscriptionsInvoice() async throws {
        try await LiveSandbox.with { sandbox in
            let client = sandbox.lemonSqueezy()
            let checkout = try await client.createCheckout(
                CheckoutRequest(variantID: "2", email: nil, appUserID: "user-r", checkoutID: UUID().uuidString, ownershipProof: "p"))
            _ = try await sandbox.control("/checkouts/lemonsqueezy/\(checkout.providerCheckoutID)/pay", ["email": "r@example.com"])
            let payment = try #require(await Self.events(sandbox, .lemonSqueezy).first { $0.name == "subscription_payment_success" })
            let invoiceID = try #require(payment.body["data", "id"]?.string)
            let refund = try await client.refund(
                RefundRequest(purchaseType: .subscription, purchaseID: "1", paymentID: invoiceID, amount: nil, idempotencyKey: "k1"))
            #expect(refund.id == invoiceID && refund.status == "refunded")
            let names = await Self.events(sandbox, .lemonSqueezy).map(\.name)
            // The first invoice was paid through its order: both are refunded, as on the dashboard.
            #expect(names.contains("subscription_payment_refunded") && names.contains("order_refunded"))
        }
    }

    @Test func paystackQueuesTheRefundByTransactionIDAndSendsRefundProcessed() async throws {
        try await LiveSandbox.with { sandbox in
            let client = sandbox.paystack()
            let checkout = try await client.createCheckout(
                CheckoutRequest(
                    variantID: "PLN_sbxpremmonth01", email: EmailAddress("r@example.com"), appUserID: "user-r", checkoutID: UUID().uuidString,
                    ownershipProof: "p"))
            _ = try await sandbox.control("/checkouts/paystack/\(checkout.providerCheckoutID)/pay", ["email": "r@example.com"])
            let transaction = try await sandbox.rawGet("/paystack/transaction/verify/\(checkout.providerCheckoutID)", key: LiveSandbox.psKey)
            let id = try #require(transaction["data", "id"]?.string)
            let amount = try #require(transaction["data", "amount"]?.int64)

            let tooMuch = await #expect(throws: ProviderError.self) {
                try await client.refund(
                    RefundRequest(purchaseType: .subscription, purchaseID: "SUB_x", paymentID: id, amount: amount + 1, idempotencyKey: "k1"))
            }
            #expect(tooMuch?.kind == .validation && tooMuch?.status == 400 && tooMuch?.message.contains("cannot be more") == true)

            let refund = try await client.refund(
                RefundRequest(purchaseType: .subscription, purchaseID: "SUB_x", paymentID: id, amount: 5000, idempotencyKey: "k2"))
            #expect(refund.provider == .paystack && refund.status == "pending" && refund.amount == 5000 && refund.id != nil)
            let processed = try #require(await Self.events(sandbox, .paystack).first { $0.name == "refund.processed" })
            #expect(processed.body["data", "transaction_reference"]?.string == checkout.providerCheckoutID)
            #expect(processed.body["data", "amount"]?.int64 == 5000)

            let missing = await #expect(throws: ProviderError.self) {
                try await client.refund(
                    RefundRequest(purchaseType: .order, purchaseID: "1", paymentID: "999999", amount: nil, idempotencyKey: "k3"))
            }
            #expect(missing?.kind == .notFound)
        }
    }
}
