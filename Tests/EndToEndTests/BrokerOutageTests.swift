import Foundation
import HTTPClient
import HTTPPrimitives
@testable import SeedModels
import Testing

/// The broker stops while the sandbox delivers a purchase's webhooks: the
/// receiver answers 503, the sandbox retries on Paystack's schedule, and once
/// the broker is back nothing is lost.
@Suite(.serialized, .liveStack(["SANDBOX_RETRY_TIME_SCALE": "0.001", "WEBHOOK_PUBLISH_TIMEOUT": "1s"])) struct BrokerOutageTests {
    var stack: LiveStack { get throws { try LiveStack.required() } }

    @Test func webhooksSurviveABrokerOutage() async throws {
        let stack = try self.stack
        let flow = try await PurchaseFlow.make(stack, provider: "paystack")
        let product = try await flow.subscriptionProduct()
        let url = try await flow.createCheckout(productID: product.productID, variantID: product.variantID)

        // Freeze the broker (its data stays: Tansu keeps topics in memory).
        try stack.signal(SIGSTOP, to: "tansu.pid")
        do {
            try await flow.pay(checkoutURL: url)
            let refused = try await stack.eventually(timeout: .seconds(20), "a 503 in the delivery log") { () -> Bool? in
                let log = try await stack.request(.get, stack.sandbox + "/_sandbox/deliveries?provider=paystack")
                return log.bodyString.contains("\"status\":503") ? true : nil
            }
            #expect(refused)
        } catch {
            try? stack.signal(SIGCONT, to: "tansu.pid")
            throw error
        }
        try stack.signal(SIGCONT, to: "tansu.pid")

        let (active, _) = try await flow.waitUntil("subscription active after the outage", timeout: .seconds(60)) { seed, _ in seed.active }
        #expect(active.subscriptionCode != nil)
    }
}
