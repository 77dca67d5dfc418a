import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Synchronization
import Testing
@testable import StorefrontKit

/// Whether a stub answers or fails like a device without a network.
final class Connectivity: Sendable {
    private let online = Mutex(true)
    var isOnline: Bool { online.withLock { $0 } }
    func set(_ value: Bool) { online.withLock { $0 = value } }
}

/// A switch a stub reads and a test flips.
final class Flag: Sendable {
    private let value = Mutex(false)
    var isOn: Bool { value.withLock { $0 } }
    func set(_ on: Bool) { value.withLock { $0 = on } }
}

/// Collects what a stream or a log hook delivers.
final class Recorder<Item: Sendable>: Sendable {
    private let items = Mutex<[Item]>([])
    func append(_ item: Item) { items.withLock { $0.append(item) } }
    var all: [Item] { items.withLock { $0 } }
    var count: Int { items.withLock { $0.count } }
}

/// The files a folder holds (none when it does not exist).
func files(in folder: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
}

/// Entitlements offline: the last answer on disk per user, judged by its own
/// `expires_at`; fetch policies; a change of user.
@Suite struct OfflineEntitlementTests {
    static let premiumAndIcons = Fixtures.entitlements([Fixtures.entitlement(), Fixtures.lifetime])

    /// A server that answers `body` while online and fails as offline otherwise.
    static func server(
        _ network: Connectivity, _ body: @escaping @Sendable (RecordedRequest) -> String = { _ in premiumAndIcons }
    )
        -> StubServer
    {
        StubServer { request, _ in network.isOnline ? .json(200, body(request)) : .failure(.notConnectedToInternet) }
    }

    @Test func offlineTheLastAnswerComesFromDiskWithItsAge() async throws {
        let folder = StubServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let network = Connectivity()
        let stub = Self.server(network)
        defer { stub.unregister() }
        let clock = ManualClock()
        let online = try await stub.client(options: StubServer.fastOptions(entitlementsDirectory: folder, clock: clock)).entitlementsSnapshot()
        #expect(online.source == .server && !online.isFromCache && online.error == nil && !online.isStale)
        #expect(online.isActive("premium") && online.age == .zero)

        // The app starts again two hours later, offline.
        network.set(false)
        clock.advance(by: .seconds(2 * 3600))
        let relaunched = stub.client(options: StubServer.fastOptions(entitlementsDirectory: folder, clock: clock))
        let offline = try await relaunched.entitlementsSnapshot()
        #expect(offline.isFromCache && offline.source == .cache && offline.isStale)
        #expect(offline.age == .seconds(2 * 3600), "\(offline.age)")
        #expect(offline.fetchedAt == online.fetchedAt)
        guard case .network(let message)? = offline.error else {
            Issue.record("the failure travels with the cached answer: \(String(describing: offline.error))")
            return
        }
        #expect(message.contains("offline"))
        #expect(offline.isActive("premium") && offline.isActive("pro_icons"), "a paying user is let in offline")
        #expect(try await relaunched.isEntitled(to: "premium"), "the older API answers offline too")
        #expect(try await relaunched.entitlements().active.count == 2)
    }

    @Test func aTokenProviderThatCannotRefreshOfflineStillLetsThePayingUserIn() async throws {
        let folder = StubServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let network = Connectivity()
        let stub = Self.server(network)
        defer { stub.unregister() }
        _ = try await stub.client(options: StubServer.fastOptions(entitlementsDirectory: folder)).entitlements()
        network.set(false)
        let requests = stub.requests.count
        // The auth SDK must refresh an expired token and cannot reach its server.
        let relaunched = stub.client(
            options: StubServer.fastOptions(entitlementsDirectory: folder), token: { throw URLError(.notConnectedToInternet) })
        let snapshot = try await relaunched.entitlementsSnapshot()
        #expect(snapshot.isFromCache && snapshot.isActive("premium"))
        guard case .network? = snapshot.error else {
            Issue.record("a token provider that cannot reach its server is a network failure: \(String(describing: snapshot.error))")
            return
        }
        #expect(stub.requests.count == requests, "no request without a token")

        // A provider that says the user is signed out is not papered over.
        struct SignedOut: Error {}
        let signedOut = stub.client(options: StubServer.fastOptions(entitlementsDirectory: folder), token: { throw SignedOut() })
        await #expect {
            try await signedOut.entitlementsSnapshot()
        } throws: { error in
            if case .unauthorized = error as? StorefrontError { true } else { false }
        }
    }

    @Test func aCachedEntitlementWhoseExpiryPassedDoesNotGrant() async throws {
        let folder = StubServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let network = Connectivity()
        // Paid until noon; the clock starts at 10:00.
        let stub = Self.server(network) { _ in
            Fixtures.entitlements([Fixtures.entitlement(expires: "2026-12-15T12:00:00.000Z"), Fixtures.lifetime])
        }
        defer { stub.unregister() }
        let clock = ManualClock()
        let client = stub.client(options: StubServer.fastOptions(entitlementsDirectory: folder, clock: clock))
        #expect(try await client.entitlementsSnapshot().isActive("premium"))

        network.set(false)
        clock.advance(by: .seconds(3 * 3600)) // 13:00, still offline
        let later = try await client.entitlementsSnapshot()
        #expect(later.isFromCache && later.isStale)
        #expect(!later.isActive("premium"), "is_active from the cache does not outlive expires_at")
        #expect(later["premium"]?.willRenew == false)
        #expect(later.isActive("pro_icons"), "lifetime access has no end")
        #expect(later.active.map(\.identifier) == ["pro_icons"], "active ones first")
        #expect(try await client.isEntitled(to: "premium") == false)

        // Nor does it come back on a relaunch, from disk.
        let relaunched = stub.client(options: StubServer.fastOptions(entitlementsDirectory: folder, clock: clock))
        #expect(try await relaunched.entitlementsSnapshot(fetchPolicy: .fromCacheOnly).isActive("premium") == false)
    }

    /// The server keeps an overdue renewal active for its renewal grace, with
    /// `expires_at` in the past: fresh, its word stands; stale, the cache does
    /// not extend the grace.
    @Test func theServersRenewalGraceIsTrustedOnlyWhileTheAnswerIsFresh() async throws {
        let network = Connectivity()
        let stub = Self.server(network) { _ in Fixtures.entitlements([Fixtures.entitlement(expires: "2026-12-15T09:00:00.000Z")]) }
        defer { stub.unregister() }
        let clock = ManualClock() // 10:00: an hour past the period end, within the server's grace
        let client = stub.client(options: StubServer.fastOptions(clock: clock))
        #expect(try await client.entitlementsSnapshot().isActive("premium"), "the server's answer")
        network.set(false)
        clock.advance(by: .seconds(10))
        let fresh = try await client.entitlementsSnapshot()
        #expect(fresh.isFromCache && !fresh.isStale && fresh.isActive("premium"), "a fresh cached answer is the server's")
        clock.advance(by: .seconds(30))
        let stale = try await client.entitlementsSnapshot()
        #expect(stale.isStale && !stale.isActive("premium"), "stale: judged by expires_at")
    }

    @Test func windingTheDeviceClockBackDoesNotRevive() throws {
        let list = try StorefrontClient.decode(
            EntitlementsBody.self, Data(Fixtures.entitlements([Fixtures.entitlement(expires: "2026-12-15T12:00:00.000Z")]).utf8),
            what: "entitlements"
        ).entitlements
        let fetched = WireDate.parse("2026-12-15T13:00:00.000Z")!
        let entry = CachedEntitlements(userKey: "k", fetchedAt: fetched, serverDate: fetched, entitlements: list)
        let windedBack = WireDate.parse("2026-12-15T11:00:00.000Z")!
        let snapshot = entry.snapshot(at: windedBack, lifetime: .seconds(30), source: .cache)
        #expect(snapshot.isStale, "an answer from the future is not fresh")
        #expect(!snapshot.isActive("premium"), "judged at the fetch time, not the wound-back clock")
        #expect(entry.referenceTime(now: windedBack) == fetched)
        // Sanity: the same entry at a time before the expiry, fetched before it too, grants.
        let early = CachedEntitlements(userKey: "k", fetchedAt: windedBack, serverDate: nil, entitlements: list)
        #expect(early.snapshot(at: windedBack.addingTimeInterval(60), lifetime: .seconds(30), source: .cache).isActive("premium"))
    }

    @Test func fetchPolicies() async throws {
        let network = Connectivity()
        let status = Mutex(200)
        let stub = StubServer { _, _ in
            guard network.isOnline else { return .failure(.notConnectedToInternet) }
            let code = status.withLock { $0 }
            return code == 200 ? .json(200, Self.premiumAndIcons) : .json(code, Fixtures.failure("status \(code)"))
        }
        defer { stub.unregister() }
        let clock = ManualClock()
        let client = stub.client(options: StubServer.fastOptions(clock: clock))

        await #expect(throws: StorefrontError.notFound(message: "No entitlements are cached for the signed-in user")) {
            try await client.entitlementsSnapshot(fetchPolicy: .fromCacheOnly)
        }
        #expect(stub.requests.isEmpty, "fromCacheOnly never asks")

        _ = try await client.entitlementsSnapshot(fetchPolicy: .cachedOrFetched)
        _ = try await client.entitlementsSnapshot(fetchPolicy: .cachedOrFetched)
        #expect(stub.requests.count == 1, "fresh: answered from memory")
        clock.advance(by: .seconds(31))
        _ = try await client.entitlementsSnapshot()
        #expect(stub.requests.count == 2, "stale: asks")
        let current = try await client.entitlementsSnapshot(fetchPolicy: .fetchCurrent)
        #expect(stub.requests.count == 3 && current.source == .server)

        network.set(false)
        await #expect(throws: StorefrontError.self, "fetchCurrent does not fall back") {
            try await client.entitlementsSnapshot(fetchPolicy: .fetchCurrent)
        }
        await #expect(throws: StorefrontError.self, "reload is fetchCurrent") { try await client.entitlements(cachePolicy: .reload) }
        let cached = try await client.entitlementsSnapshot(fetchPolicy: .fromCacheOnly)
        #expect(cached.isFromCache && cached.error == nil && cached.isActive("premium"))

        network.set(true)
        clock.advance(by: .seconds(31))
        status.withLock { $0 = 503 }
        let outage = try await client.entitlementsSnapshot()
        #expect(outage.isFromCache && outage.error == .providerUnavailable(message: "status 503", retryAfter: nil))
        status.withLock { $0 = 401 }
        await #expect(throws: StorefrontError.unauthorized(message: "status 401"), "a rejected token is not papered over") {
            try await client.entitlementsSnapshot()
        }
    }

    @Test func anotherUserClearsTheCacheOnDiskAndSignOutRemovesIt() async throws {
        let folder = StubServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let user = Mutex("alice@example.com")
        let network = Connectivity()
        let stub = StubServer { request, _ in
            guard network.isOnline else { return .failure(.notConnectedToInternet) }
            let isAlice = request.header("Authorization") == "Bearer \(StubServer.jwt(subject: "alice@example.com"))"
            return .json(200, isAlice ? Self.premiumAndIcons : Fixtures.entitlements([]))
        }
        defer { stub.unregister() }
        let client = stub.client(
            options: StubServer.fastOptions(entitlementsDirectory: folder), token: { StubServer.jwt(subject: user.withLock { $0 }) })
        #expect(try await client.entitlementsSnapshot().isActive("premium"))
        let aliceFiles = files(in: folder)
        #expect(aliceFiles.count == 1)
        let name = try #require(aliceFiles.first)
        let stored = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        #expect(!name.contains("alice") && !stored.contains("alice"), "the user id is kept only as a hash")
        #expect(!stored.contains(StubServer.jwt(subject: "alice@example.com")) && !stored.contains("Bearer"), "never the token")
        #expect(name.contains(String(EntitlementDiskCache.userKey(subject: "alice@example.com").prefix(32))))

        // Bob signs in on the same device, offline: Alice's answer is not his.
        network.set(false)
        user.withLock { $0 = "bob" }
        await #expect(throws: StorefrontError.self, "nothing of Alice's answers for Bob") { try await client.entitlementsSnapshot() }
        #expect(files(in: folder).isEmpty, "Alice's file went with her")

        network.set(true)
        #expect(try await client.entitlementsSnapshot().entitlements.isEmpty)
        let bobFiles = files(in: folder)
        #expect(bobFiles.count == 1 && bobFiles != aliceFiles)

        var updates = await client.entitlementSnapshots().makeAsyncIterator()
        #expect(await updates.next()?.source == .server)
        await client.reset()
        #expect(files(in: folder).isEmpty, "sign-out removes the file")
        let signedOut = await updates.next()
        #expect(signedOut?.source == .unknown && signedOut?.entitlements.isEmpty == true)
        network.set(false)
        await #expect(throws: StorefrontError.self) { try await client.entitlementsSnapshot() }
    }

    @Test func diskFilesAreKeyedByServerAndUserHash() {
        let folder = URL(fileURLWithPath: "/tmp/x")
        let one = EntitlementDiskCache(directory: folder, baseURL: URL(string: "https://a.example")!)
        let two = EntitlementDiskCache(directory: folder, baseURL: URL(string: "https://b.example")!)
        let key = EntitlementDiskCache.userKey(subject: "user-1")
        #expect(one.file(for: key) != two.file(for: key))
        #expect(one.file(for: key) != one.file(for: EntitlementDiskCache.userKey(subject: "user-2")))
        #expect(key.count == 64 && key.allSatisfy(\.isHexDigit))
        #expect(!one.file(for: key).lastPathComponent.contains("user-1"))
    }

    @Test func sha256MatchesTheStandardVectors() {
        #expect(SHA256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex(String(repeating: "a", count: 1000)).count == 64)
    }
}

/// Entitlements refresh on their own: periodically while observed, and when
/// the app returns to the foreground.
@Suite struct RefreshTests {
    @Test func aStreamRefreshesEveryIntervalOnTheClock() async throws {
        let grants = Mutex(false)
        let network = Connectivity()
        let stub = StubServer { _, _ in
            guard network.isOnline else { return .failure(.notConnectedToInternet) }
            let premium = Fixtures.entitlement(expires: "2026-12-15T12:00:00.000Z")
            return .json(200, Fixtures.entitlements(grants.withLock { $0 } ? [premium] : []))
        }
        defer { stub.unregister() }
        let clock = ManualClock()
        let client = stub.client(options: StubServer.fastOptions(clock: clock))
        let seen = Recorder<EntitlementsSnapshot>()
        let reader = Task {
            for await snapshot in await client.entitlementSnapshots() { seen.append(snapshot) }
        }
        try await eventually("the first snapshot") { seen.count == 1 }
        #expect(seen.all.first?.isActive("premium") == false && seen.all.first?.source == .server)
        let firstRequests = stub.requests.count

        grants.withLock { $0 = true } // bought on another device
        try await clock.waitForSleepers()
        clock.advance(by: .seconds(299))
        try await Task.sleep(for: .milliseconds(50))
        #expect(stub.requests.count == firstRequests && seen.count == 1, "not before the interval")
        clock.advance(by: .seconds(1))
        try await eventually("the refreshed snapshot") { seen.count == 2 }
        #expect(seen.all[1].isActive("premium") && seen.all[1].source == .server)

        // Offline, the next refresh judges the cached answer: premium ends at noon.
        network.set(false)
        try await clock.waitForSleepers()
        clock.advance(by: .seconds(2 * 3600))
        try await eventually("the offline snapshot") { seen.count == 3 }
        let offline = seen.all[2]
        #expect(offline.isFromCache && offline.error != nil && !offline.isActive("premium"))

        // The same answer again is not news.
        try await clock.waitForSleepers()
        let requests = stub.requests.count
        clock.advance(by: .seconds(300))
        try await eventually("another refresh") { stub.requests.count > requests }
        try await Task.sleep(for: .milliseconds(50))
        #expect(seen.count == 3)

        // Nobody observes any more: the timer stops.
        reader.cancel()
        try await eventually("the timer to stop") { clock.sleeperCount == 0 }
    }

    @Test func noRefreshIntervalMeansNoTimer() async throws {
        let stub = StubServer { _, _ in .json(200, Fixtures.entitlements([])) }
        defer { stub.unregister() }
        let clock = ManualClock()
        var options = StubServer.fastOptions(clock: clock)
        options.refreshInterval = nil
        let client = stub.client(options: options)
        var updates = await client.entitlementUpdates().makeAsyncIterator()
        _ = try await client.entitlements()
        #expect(await updates.next() == [])
        try await Task.sleep(for: .milliseconds(50))
        #expect(clock.sleeperCount == 0)
    }

    @Test func theForegroundRefreshesStaleEntitlements() async throws {
        let stub = StubServer { _, _ in .json(200, Fixtures.entitlements([Fixtures.entitlement()])) }
        defer { stub.unregister() }
        let clock = ManualClock()
        let client = stub.client(options: StubServer.fastOptions(clock: clock))
        let center = NotificationCenter()
        let name = Notification.Name("test.willEnterForeground")
        client.foreground.observe([name], on: center) { [weak client] in await client?.applicationWillEnterForeground() }

        await client.applicationWillEnterForeground()
        #expect(stub.requests.isEmpty, "nobody signed in or observing: nothing to refresh")
        _ = try await client.entitlements()
        await client.applicationWillEnterForeground()
        #expect(stub.requests.count == 1, "fresh: no request")

        clock.advance(by: .seconds(60))
        center.post(name: name, object: nil)
        try await eventually("the foreground refresh") { stub.requests.count == 2 }
        #expect(stub.requests.last?.url.path == "/api/entitlements")
    }
}

/// The buyer comes back from the hosted page: purchased, pending or cancelled.
@Suite struct CheckoutOutcomeTests {
    static func stub(checkoutID: String, paid: Flag? = nil) -> StubServer {
        StubServer { request, _ in
            switch request.url.path {
            case "/api/entitlements": .json(200, Fixtures.entitlements([]))
            case "/api/create-checkout": .json(200, Fixtures.checkout(id: checkoutID))
            default:
                paid?.isOn == true
                    ? .json(200, Fixtures.status(entitlements: [Fixtures.entitlement(latest: "2026-12-01T10:05:00.000Z")]))
                    : .json(200, Fixtures.pendingOnly(checkoutID))
            }
        }
    }

    /// Long poll pauses: only a reported close (or a return link) ends the wait early.
    static func slowPolls(grace: Duration, returnURLs: [URL] = []) -> StorefrontClient.Options {
        var options = StubServer.fastOptions(returnURLs: returnURLs)
        options.pollInitialDelay = .seconds(180)
        options.pollMaximumDelay = .seconds(180)
        options.checkoutClosedGrace = grace
        return options
    }

    static func statusPolls(_ stub: StubServer) -> Int {
        stub.requests.filter { $0.url.path == "/api/subscription/status" }.count
    }

    @Test func closingThePageWithoutPayingIsCancelled() async throws {
        let stub = Self.stub(checkoutID: "chk-c")
        defer { stub.unregister() }
        let client = stub.client(options: Self.slowPolls(grace: .milliseconds(50)))
        let checkout = try await client.createCheckout(variantID: "ls_11")
        let start = ContinuousClock.now
        async let outcome = client.awaitCheckout(checkout, timeout: .seconds(300))
        try await eventually("the first poll") { Self.statusPolls(stub) >= 1 }
        client.checkoutClosed(checkout)
        #expect(try await outcome == .cancelled)
        // A bound for a loaded machine, far below the 180 s pause and the 300 s timeout.
        #expect(ContinuousClock.now - start < .seconds(90))
        #expect(Self.statusPolls(stub) >= 2, "it looked once more after the close")
    }

    @Test func aPageClosedBeforeTheWaitStartedIsCancelledToo() async throws {
        let stub = Self.stub(checkoutID: "chk-e")
        defer { stub.unregister() }
        let client = stub.client(options: Self.slowPolls(grace: .milliseconds(50)))
        let checkout = try await client.createCheckout(variantID: "ls_11")
        let before = stub.requests.count
        client.checkoutClosed(checkout)
        try await eventually("the refresh after the close") { stub.requests.count > before }
        #expect(try await client.awaitCheckout(checkout, timeout: .seconds(300)) == .cancelled)
    }

    @Test func aPaymentMadeJustBeforeClosingIsPurchased() async throws {
        let paid = Flag()
        let stub = Self.stub(checkoutID: "chk-p", paid: paid)
        defer { stub.unregister() }
        let client = stub.client(options: Self.slowPolls(grace: .seconds(60)))
        let checkout = try await client.createCheckout(variantID: "ls_11")
        async let outcome = client.awaitCheckout(checkout, timeout: .seconds(300))
        try await eventually("the first poll") { Self.statusPolls(stub) >= 1 }
        paid.set(true)
        client.checkoutClosed(checkout)
        guard case .purchased(let granted) = try await outcome else {
            Issue.record("expected a purchase")
            return
        }
        #expect(granted.map(\.identifier) == ["premium"])
    }

    @Test func closedAfterTheReturnLinkIsPendingNotCancelled() async throws {
        let stub = Self.stub(checkoutID: "chk-r")
        defer { stub.unregister() }
        let client = stub.client(options: Self.slowPolls(grace: .milliseconds(50), returnURLs: [URL(string: "myapp://done")!]))
        let checkout = try await client.createCheckout(variantID: "ls_11")
        async let outcome = client.awaitCheckout(checkout, timeout: .seconds(300))
        try await eventually("the first poll") { Self.statusPolls(stub) >= 1 }
        let entitlementReads = stub.requests.filter { $0.url.path == "/api/entitlements" }.count
        #expect(client.handleRedirect(URL(string: "myapp://done?paid=1")!))
        try await eventually("the return link's refresh") {
            stub.requests.filter { $0.url.path == "/api/entitlements" }.count > entitlementReads
        }
        client.checkoutClosed(checkout)
        #expect(try await outcome == .pending, "the buyer paid; the purchase is on its way")
    }

    @Test func aTimeoutIsPendingAndTheOlderOutcomeMapsOver() async throws {
        let stub = Self.stub(checkoutID: "chk-t")
        defer { stub.unregister() }
        let client = stub.client()
        #expect(try await client.awaitCheckout(checkoutID: "chk-t", timeout: .milliseconds(200)) == .pending)
        #expect(PurchaseOutcome(CheckoutOutcome.cancelled) == .expired)
        #expect(PurchaseOutcome(CheckoutOutcome.pending) == .timedOut)
        #expect(PurchaseOutcome(CheckoutOutcome.purchased([])) == .purchased([]))
        #expect(CheckoutOutcome.cancelled.description == "cancelled")
    }

    @Test func comingBackFromTheBrowserIsNoticedOnce() {
        var detector = BrowserReturnDetector()
        var reports: [Bool] = []
        func phase(_ isActive: Bool) { reports.append(detector.phaseChanged(isActive: isActive)) }
        phase(false)
        phase(true)
        #expect(reports == [false, false], "no checkout open")
        detector.checkoutOpened()
        reports = []
        phase(true) // still in the app
        phase(false) // off to the browser
        phase(true) // back: report it
        phase(true) // once
        #expect(reports == [false, false, true, false])
        detector.finished()
        reports = []
        phase(false)
        phase(true)
        #expect(reports == [false, false], "the outcome arrived")
    }
}

/// The customer-portal link and a product by id.
@Suite struct PortalAndProductTests {
    @Test func thePortalLinkIsFetchedForTheStatusSubscription() async throws {
        let stub = StubServer { request, _ in
            switch request.url.path {
            case "/api/subscription/status": .json(200, Fixtures.status())
            case "/api/subscription/portal":
                request.url.query == "subscription_code=SUB_123" || request.url.query == "subscription_code=SUB%201%26x"
                    ? .json(200, Fixtures.portal) : .json(404, Fixtures.failure("Subscription not found"))
            default: .json(500, Fixtures.failure("unexpected"))
            }
        }
        defer { stub.unregister() }
        let client = stub.client()
        let link = try await client.customerPortal()
        #expect(link.url.absoluteString == "https://shop.lemonsqueezy.com/billing?expires=1&signature=abc")
        #expect(link.provider == .lemonSqueezy && link.subscriptionCode == "SUB_123")
        let request = try #require(stub.requests.last)
        #expect(request.method == "GET" && request.url.path == "/api/subscription/portal" && request.url.query == "subscription_code=SUB_123")
        #expect(request.header("Authorization")?.hasPrefix("Bearer ") == true)

        _ = try await client.customerPortal(subscriptionCode: "SUB 1&x")
        #expect(stub.requests.last?.url.query == "subscription_code=SUB%201%26x", "the code is escaped")
        await #expect(throws: StorefrontError.notFound(message: "Subscription not found")) {
            try await client.customerPortal(subscriptionCode: "SUB_other")
        }

        let empty = StubServer { _, _ in .json(200, Fixtures.noStatus) }
        defer { empty.unregister() }
        await #expect(throws: StorefrontError.notFound(message: "There is no subscription to manage")) { try await empty.client().customerPortal() }
        #expect(empty.requests.allSatisfy { $0.url.path == "/api/subscription/status" })
    }

    @Test func aProductByIDIsRevalidatedWithItsETag() async throws {
        let stub = StubServer { request, _ in
            let path = request.url.absoluteString.replacingOccurrences(of: "https://\(request.url.host ?? "")", with: "")
            switch path {
            case "/api/products/ls_1":
                return request.header("If-None-Match") == #""p1""#
                    ? .response(status: 304, headers: ["ETag": #""p1""#], body: Data())
                    : .json(200, Fixtures.product(id: "ls_1"), headers: ["ETag": #""p1""#])
            case "/api/products/a%2Fb": return .json(200, Fixtures.product(id: "a/b"))
            default: return .json(404, Fixtures.failure("Product not found"))
            }
        }
        defer { stub.unregister() }
        let client = stub.client()
        let product = try await client.product(id: "ls_1")
        #expect(product.id == "ls_1" && product.variantID == "ls_11" && product.name == "Pro Monthly" && product.isSubscription)
        #expect(try await client.product(id: "ls_1") == product)
        #expect(stub.requests.map { $0.header("If-None-Match") } == [nil, #""p1""#])
        #expect(stub.requests.allSatisfy { $0.header("Authorization") == nil }, "products need no token")
        _ = try await client.product(id: "ls_1", cachePolicy: .returnCacheIfFresh)
        #expect(stub.requests.count == 2, "a fresh product answers without asking")

        #expect(try await client.product(id: "a/b").id == "a/b", "the id is one path segment")
        await #expect(throws: StorefrontError.notFound(message: "Product not found")) { try await client.product(id: "nope") }
    }
}

/// The app's log hook: levels, and never a token.
@Suite struct LoggingTests {
    @Test func theLogHookNeverSeesTheToken() async throws {
        let stale = StubServer.jwt(subject: "user-7") + "stale"
        let fresh = StubServer.jwt(subject: "user-7")
        let network = Connectivity()
        let stub = StubServer { request, _ in
            guard network.isOnline else { return .failure(.timedOut) }
            return request.header("Authorization") == "Bearer \(stale)"
                ? .json(401, Fixtures.failure("Token expired: \(stale)")) // a server that echoes what it got
                : .json(200, Fixtures.entitlements([Fixtures.entitlement()]))
        }
        defer { stub.unregister() }
        struct Leaky: LocalizedError {
            var token: String
            var errorDescription: String? { "refresh failed for Bearer \(token) (\(token))" }
        }
        let calls = Mutex(0)
        let leak = Flag()
        let logs = Recorder<(level: StorefrontLogLevel, message: String)>()
        var options = StubServer.fastOptions()
        options.logLevel = .debug
        options.logHandler = { level, message in logs.append((level, message)) }
        options.entitlementsLifetime = .zero // every read asks, so offline the cache answers
        let client = stub.client(options: options) {
            let call = calls.withLock { value -> Int in
                value += 1
                return value
            }
            if leak.isOn { throw Leaky(token: fresh) }
            return call <= 2 ? stale : fresh
        }
        // A 401 whose message echoes the token, the same token again, so it is thrown (and logged).
        await #expect(throws: StorefrontError.unauthorized(message: "Token expired: \(stale)")) {
            try await client.entitlements(cachePolicy: .reload)
        }
        _ = try await client.entitlements(cachePolicy: .reload)
        network.set(false)
        #expect(try await client.entitlementsSnapshot().isFromCache, "offline: the cache answers, and says so in the log")
        leak.set(true)
        await #expect(throws: StorefrontError.self, "a token provider whose error holds the token") {
            try await client.entitlements(cachePolicy: .reload)
        }

        let all = logs.all
        #expect(all.contains { $0.level == .debug && $0.message.contains("GET /api/entitlements → 200") })
        #expect(all.contains { $0.level == .error && $0.message.contains("unauthorized: Token expired") })
        #expect(all.contains { $0.level == .info && $0.message.contains("answered from the cache") })
        #expect(all.contains { $0.level == .error && $0.message.contains("token provider") }, "\(all.map(\.message))")
        let payload = String(fresh.split(separator: ".")[1])
        for entry in all {
            #expect(!entry.message.contains(fresh) && !entry.message.contains(stale), "token in: \(entry.message)")
            #expect(!entry.message.contains(payload), "token part in: \(entry.message)")
            #expect(!entry.message.contains("user-7"), "the user id in: \(entry.message)")
        }
        #expect(all.contains { $0.message.contains(LogRedactor.placeholder) }, "the echoed and leaked tokens were scrubbed")

        // Levels filter.
        let quiet = Recorder<StorefrontLogLevel>()
        var warningsOnly = StubServer.fastOptions()
        warningsOnly.logLevel = .warning
        warningsOnly.logHandler = { level, _ in quiet.append(level) }
        _ = try? await stub.client(options: warningsOnly).entitlements() // offline: fails, with nothing cached
        #expect(quiet.all.allSatisfy { $0 >= .warning } && !quiet.all.isEmpty, "\(quiet.all)")
    }

    @Test func theRedactorScrubsTokensBearerValuesAndJWTShapes() {
        let jwt = StubServer.jwt(subject: "someone")
        #expect(LogRedactor.redact("Authorization: Bearer abc.def") == "Authorization: Bearer <redacted>")
        #expect(LogRedactor.redact("token=\(jwt);") == "token=<redacted>;")
        #expect(LogRedactor.redact("opaque s3cr3t-t0ken-value here", secrets: ["s3cr3t-t0ken-value"]) == "opaque <redacted> here")
        #expect(LogRedactor.redact("GET /api/products/ls_1.2 → 200 in 3 ms") == "GET /api/products/ls_1.2 → 200 in 3 ms", "paths stay")
        #expect(LogRedactor.redact("at 2026-12-01T10:00:00.000Z") == "at 2026-12-01T10:00:00.000Z")
    }
}

/// The paywall's decision, in plain Swift.
@Suite struct PaywallGateTests {
    static let premium = EntitlementInfo(identifier: "premium", isActive: true, productID: "ls_1", provider: .lemonSqueezy)

    @Test func theGateShowsContentOnlyForAnActiveEntitlement() {
        let now = Date()
        #expect(PaywallGate.decision(for: "premium", snapshot: nil) == .loading, "no flash of the paywall before the first answer")
        let paying = EntitlementsSnapshot(entitlements: [Self.premium], source: .server, fetchedAt: now)
        #expect(PaywallGate.decision(for: "premium", snapshot: paying) == .unlocked)
        #expect(PaywallGate.decision(for: "gold", snapshot: paying) == .paywall)
        let offline = EntitlementsSnapshot(
            entitlements: [Self.premium], source: .cache, fetchedAt: now, age: .seconds(86_400), isStale: true,
            error: .network(message: "offline"))
        #expect(PaywallGate.decision(for: "premium", snapshot: offline) == .unlocked, "offline, a paying user keeps the content")
        var lapsed = Self.premium
        lapsed.isActive = false
        #expect(
            PaywallGate.decision(for: "premium", snapshot: EntitlementsSnapshot(entitlements: [lapsed], source: .cache, fetchedAt: now)) == .paywall)
        #expect(PaywallGate.decision(for: "premium", snapshot: .nobody(at: now)) == .paywall)
    }
}
