import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Synchronization
import Testing

@testable import StorefrontKit

/// The live stream in the kit, against the fake transport: a change wakes a
/// purchase wait and refreshes observers; a stream that fails leaves the
/// client polling as before.
@Suite struct LiveChangesTests {
    static let event = #"{"id":"evt-1","type":"entitlement.granted","app_user_id":"user-1"}"#

    /// The stream's answer: one event once `changed` is set; until then,
    /// nothing after a short hold (the real server's long poll, shortened).
    static func streamAnswer(_ changed: Bool, after cursor: String?) -> StubAnswer {
        if changed, cursor != "evt-1" { return .json(200, #"{"success":true,"events":[\#(event)],"cursor":"evt-1","reset":false}"#) }
        return .delayed(seconds: 0.05, .json(200, #"{"success":true,"events":[],"cursor":\#(cursor.map { "\"\($0)\"" } ?? "null"),"reset":false}"#))
    }

    static func cursor(_ request: RecordedRequest) -> String? {
        URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "after" }?.value
    }

    /// Options under which polling alone would take minutes.
    static func slowPolling(liveChanges: Bool) -> StorefrontClient.Options {
        var options = StubServer.fastOptions(liveChanges: liveChanges)
        options.pollInitialDelay = .seconds(180)
        options.pollMaximumDelay = .seconds(180)
        options.liveChangesPollInterval = .seconds(180)
        return options
    }

    @Test func aChangeOnTheStreamEndsThePurchaseWaitAtOnce() async throws {
        let paid = Mutex(false)
        let stub = StubServer { request, _ in
            switch request.url.path {
            case "/api/entitlements": .json(200, Fixtures.entitlements([]))
            case "/api/create-checkout": .json(200, Fixtures.checkout(id: "chk-9"))
            case "/api/entitlements/stream": Self.streamAnswer(paid.withLock { $0 }, after: Self.cursor(request))
            default: paid.withLock { $0 } ? .json(200, Fixtures.status()) : .json(200, Fixtures.pendingOnly("chk-9"))
            }
        }
        defer { stub.unregister() }
        let client = stub.client(options: Self.slowPolling(liveChanges: true))
        let checkout = try await client.createCheckout(variantID: "ls_11")
        let start = ContinuousClock.now
        async let outcome = client.awaitPurchase(checkout, timeout: .seconds(300))
        while !stub.requests.contains(where: { $0.url.path == "/api/subscription/status" }) { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(200))
        paid.withLock { $0 = true }
        guard case .purchased = try await outcome else {
            Issue.record("expected a purchase")
            return
        }
        // A bound far below the 180 s pause (a loaded machine is slow).
        #expect(ContinuousClock.now - start < .seconds(90), "woken by the stream, not by the pause")
        let polls = stub.requests.filter { $0.url.path == "/api/entitlements/stream" }
        #expect(polls.first.map(Self.cursor) == .some(nil), "the first poll waits for what comes next")
        #expect(polls.allSatisfy { $0.header("Authorization")?.hasPrefix("Bearer ") == true })
        #expect(polls.contains { ($0.url.query ?? "").contains("wait=") })
    }

    @Test func aStreamThatFailsLeavesTheWaitPolling() async throws {
        let polls = Mutex(0)
        let stub = StubServer { request, _ in
            switch request.url.path {
            case "/api/entitlements": return .json(200, Fixtures.entitlements([]))
            case "/api/create-checkout": return .json(200, Fixtures.checkout(id: "chk-10"))
            case "/api/entitlements/stream": return .json(404, Fixtures.failure("Not found"))
            default:
                let count = polls.withLock { count in
                    count += 1
                    return count
                }
                return count < 4 ? .json(200, Fixtures.pendingOnly("chk-10")) : .json(200, Fixtures.status())
            }
        }
        defer { stub.unregister() }
        // Short polls, but a 180 s pause were the stream believed up.
        var options = StubServer.fastOptions(liveChanges: true)
        options.liveChangesPollInterval = .seconds(180)
        let client = stub.client(options: options)
        let checkout = try await client.createCheckout(variantID: "ls_11")
        let start = ContinuousClock.now
        guard case .purchased = try await client.awaitPurchase(checkout, timeout: .seconds(300)) else {
            Issue.record("expected a purchase")
            return
        }
        #expect(ContinuousClock.now - start < .seconds(90), "back to short polls once the stream failed")
        #expect(stub.requests.filter { $0.url.path == "/api/entitlements/stream" }.count == 1, "a 404 is not asked again soon")
    }

    @Test(.timeLimit(.minutes(1))) func observersAreRefreshedByAChange() async throws {
        let changed = Mutex(false)
        let stub = StubServer { request, _ in
            switch request.url.path {
            case "/api/entitlements/stream": Self.streamAnswer(changed.withLock { $0 }, after: Self.cursor(request))
            default: .json(200, Fixtures.entitlements(changed.withLock { $0 } ? [Fixtures.entitlement()] : []))
            }
        }
        defer { stub.unregister() }
        let client = stub.client(options: Self.slowPolling(liveChanges: true))
        var updates = await client.entitlementUpdates().makeAsyncIterator()
        _ = try await client.entitlements(cachePolicy: .reload)
        #expect(await updates.next() == [])
        changed.withLock { $0 = true }
        // The periodic refresh is 5 minutes away: only the stream can bring this.
        #expect(await updates.next()?.isActive("premium") == true)
    }

    @Test func nothingListensWithoutAWaitOrAnObserver() async throws {
        let stub = StubServer { _, _ in .json(200, Fixtures.entitlements([])) }
        defer { stub.unregister() }
        let client = stub.client(options: Self.slowPolling(liveChanges: true))
        _ = try await client.entitlements(cachePolicy: .reload)
        try await Task.sleep(for: .milliseconds(200))
        #expect(!stub.requests.contains { $0.url.path == "/api/entitlements/stream" })
        #expect(await client.liveChangesTask == nil)
    }

    @Test func answersAndPathsAreReadAndWrittenAsTheServerDoes() throws {
        let answer = try LiveChangesAnswer(data: Data(#"{"success":true,"events":[\#(Self.event),{"id":"x"}],"cursor":"evt-1","reset":false}"#.utf8))
        #expect(answer.eventTypes == ["entitlement.granted", "unknown"] && answer.cursor == "evt-1" && !answer.reset && answer.reportsChange)
        let reset = try LiveChangesAnswer(data: Data(#"{"success":true,"events":[],"cursor":null,"reset":true}"#.utf8))
        #expect(reset.cursor == nil && reset.reset && reset.reportsChange)
        let quiet = try LiveChangesAnswer(data: Data(#"{"success":true,"events":[],"cursor":"c","reset":false}"#.utf8))
        #expect(!quiet.reportsChange)
        #expect(throws: StorefrontError.self) { try LiveChangesAnswer(data: Data("<html>".utf8)) }
        #expect(LiveChangesAnswer.path(after: nil, wait: .seconds(25)) == "api/entitlements/stream?wait=25")
        #expect(LiveChangesAnswer.path(after: "a+b&c", wait: .seconds(90)) == "api/entitlements/stream?wait=25&after=a%2Bb%26c")
        #expect(LiveChangesAnswer.path(after: nil, wait: .zero) == "api/entitlements/stream?wait=1")
        #expect(StorefrontClient.liveChangesRetryDelay(after: .network(message: "x"), failures: 1) == .seconds(1))
        #expect(StorefrontClient.liveChangesRetryDelay(after: .network(message: "x"), failures: 20) == .seconds(60))
        #expect(StorefrontClient.liveChangesRetryDelay(after: .notFound(message: "x"), failures: 1) == .seconds(600))
    }
}
