import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import HTTPClient
import StorefrontKit
import TestSupport
import Testing

/// StorefrontKit's purchase wait ended by the live stream, through the
/// gateway, the real checkout and the real projector: the projector's outbox
/// announces the purchase on `storefront.entitlements.v1` after its commit,
/// the checkout's stream hands it to the waiting app.
extension StorefrontKitLiveTests {
    /// StorefrontKit's status reads in the gateway's access log.
    static func statusReads(_ stack: LiveStack) throws -> Int {
        let log = try String(contentsOfFile: stack.state + "/logs/gateway-access.log", encoding: .utf8)
        return log.split(separator: "\n").filter { $0.contains("\"GET /api/subscription/status") && $0.contains("StorefrontKit/1") }.count
    }

    /// The statuses the gateway logged for StorefrontKit's stream polls, oldest first.
    static func streamPollStatuses(_ stack: LiveStack) throws -> [Int] {
        let log = try String(contentsOfFile: stack.state + "/logs/gateway-access.log", encoding: .utf8)
        return log.split(separator: "\n").filter { $0.contains("\"GET /api/entitlements/stream?") && $0.contains("StorefrontKit/1") }
            .compactMap { line in
                guard let version = line.range(of: " HTTP/"), let end = line.range(of: "\" ", range: version.upperBound..<line.endIndex) else {
                    return nil
                }
                return Int(line[end.upperBound...].prefix { $0.isNumber })
            }
    }

    @Test(.timeLimit(.minutes(5))) func thePurchaseWaitEndsWhenTheChangeIsStreamed() async throws {
        let stack = try self.stack
        let subject = "kit-live-\(UUID().uuidString.prefix(8).lowercased())"
        let email = "\(subject)@example.com"
        let token = try await stack.token(subject: subject, email: email)
        // Polling alone would pause three minutes after its first look: only the stream ends the wait sooner.
        let options = StorefrontClient.Options(
            pollInitialDelay: .seconds(180), pollMaximumDelay: .seconds(180), liveChangesPollInterval: .seconds(180))
        let client = StorefrontClient(baseURL: URL(string: stack.gateway)!, options: options) { token }
        let product = try LiveKit.subscription(try await client.products(), "lemonsqueezy")
        let checkout = try await client.createCheckout(for: product, email: email)

        let readsBefore = try Self.statusReads(stack)
        let start = ContinuousClock.now
        let wait = Task { try await client.awaitPurchase(checkout, timeout: .seconds(240)) }
        // Pay only once the wait has looked (and found nothing), so its next look is the stream's doing.
        try await waitUntil("the wait's first status read") { try Self.statusReads(stack) > readsBefore }
        try await LiveKit.pay(stack, checkout)
        guard case .purchased(let granted) = try await wait.value else {
            Issue.record("the wait did not end with the purchase")
            return
        }
        #expect(granted.contains { LiveKit.grants($0, product) && $0.isActive }, "\(product.id): \(granted)")
        // A bound far below the 180 s pause (a loaded machine is slow), not a pace.
        #expect(ContinuousClock.now - start < .seconds(120), "ended by the change the outbox streamed, not by the pause")
        #expect(try Self.statusReads(stack) - readsBefore <= 3, "the wait looked on the change, it did not poll")
        // Every pause was 180 s and no poll of the stream failed (a failure would wake the
        // wait to poll instead): the change on the stream is what ended it. The gateway
        // writes a line once its answer is out, so the poll that brought the change is there.
        _ = try await waitUntil("the stream's answer is logged") { try !Self.streamPollStatuses(stack).isEmpty }
        // 499 is nginx's "the client closed the request": the kit cancels the poll it had
        // open once the wait ended, and that line may already be logged. Any other status
        // is a poll that failed.
        let polls = try Self.streamPollStatuses(stack)
        #expect(polls.contains(200) && polls.allSatisfy { $0 == 200 || $0 == 499 }, "stream polls answered \(polls)")
    }
}
