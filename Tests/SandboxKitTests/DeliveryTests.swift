import Testing
@testable import SandboxKit

@Suite struct DeliveryTests {
    @Test func retriesUntilAcknowledgedAndLogsAttempts() async throws {
        let h = Harness(statuses: [500, 503])
        let id = try #require(await h.lsCheckout(variant: 1))
        _ = await h.control("POST", "/checkouts/lemonsqueezy/\(id)/pay")
        await h.app.settleDeliveries()
        #expect(h.transport.sent.count == 3)
        let log = try #require(await h.control("GET", "/deliveries?provider=lemonsqueezy&event=order_created").json?["deliveries"]?.arrayValue)
        #expect(log.map { $0["attempt"]?.intValue } == [1, 2, 3])
        #expect(log.map { $0["status"]?.intValue } == [500, 503, 200])
        #expect(log.map { $0["outcome"]?.stringValue } == ["retrying", "retrying", "delivered"])
        #expect(log.allSatisfy { $0["body"]?.stringValue?.contains("order_created") == true })
        #expect(log[0]["headers"]?["X-Event-Name"]?.stringValue == "order_created")
        #expect(await h.control("GET", "/deliveries?provider=paystack").json?["deliveries"]?.arrayValue?.isEmpty == true)
    }

    @Test func givesUpAfterTheProviderSchedule() async throws {
        let h = Harness(statuses: Array(repeating: 500, count: 20))
        let id = try #require(await h.lsCheckout(variant: 1))
        _ = await h.control("POST", "/checkouts/lemonsqueezy/\(id)/pay")
        await h.app.settleDeliveries()
        // Lemon Squeezy: the first attempt plus 3 retries.
        let attempts = await h.app.deliveries(provider: .lemonSqueezy)
        #expect(attempts.count == 4)
        #expect(attempts.last?.outcome == .failed)
    }

    @Test func duplicateFaultSendsIdenticalBytesTwice() async throws {
        let h = Harness()
        _ = await h.control("POST", "/faults", body: ["duplicate_next": 1])
        let id = try #require(await h.lsCheckout(variant: 1))
        _ = await h.control("POST", "/checkouts/lemonsqueezy/\(id)/pay")
        await h.app.settleDeliveries()
        let sent = h.transport.sent
        #expect(sent.count == 2)
        #expect(sent[0].body == sent[1].body)
        #expect(sent[0].header("X-Signature") == sent[1].header("X-Signature"))
        let attempts = await h.app.deliveries()
        #expect(attempts[1].duplicateOf == attempts[0].deliveryID)
    }

    @Test func shuffleFaultReordersOneBatchOnly() async throws {
        let h = Harness()
        _ = await h.control("POST", "/faults", body: ["shuffle_next_batch": true])
        _ = await h.lsSubscribe()
        let normal = ["order_created", "subscription_created", "subscription_payment_success"]
        let shuffled = h.transport.sent.map(\.lsEvent)
        #expect(shuffled != normal)
        #expect(Set(shuffled.compactMap { $0 }) == Set(normal))
        _ = await h.lsSubscribe()
        #expect(h.transport.sent.suffix(3).map(\.lsEvent) == normal)
    }

    @Test func failFaultIsSimulatedWithoutSending() async throws {
        let h = Harness()
        let faults = await h.control("POST", "/faults", body: ["fail_next_attempts": 2])
        #expect(faults.json?["fail_next_attempts"]?.intValue == 2)
        _ = await h.psSubscribe()
        // The next two attempts overall fail (whichever webhooks they belong to), then each is retried.
        let attempts = await h.app.deliveries(provider: .paystack)
        #expect(attempts.filter(\.simulated).count == 2)
        #expect(attempts.first?.simulated == true)
        #expect(attempts.first?.eventName == "charge.success")
        #expect(Set(attempts.filter { $0.outcome == .delivered }.map(\.eventName)) == ["charge.success", "subscription.create"])
        // Simulated failures send nothing: the receiver saw each webhook once.
        #expect(h.transport.sent.count == 2)
        #expect(Set(h.transport.sent.compactMap(\.psEvent)) == ["charge.success", "subscription.create"])
    }
}
