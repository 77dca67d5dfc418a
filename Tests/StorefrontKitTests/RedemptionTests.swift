import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Synchronization
import Testing
@testable import StorefrontKit

/// Redemption links, universal links and restoring purchases (issue 33),
/// over the `URLProtocol` stub with answers shaped as docs/web-first-contract.md says.
extension WebFirstFixtures {
    static let purchase = PurchaseReference(provider: .lemonSqueezy, type: "subscription", id: "sub_1")
    static let purchaseJSON = #"{"provider":"lemonsqueezy","type":"subscription","id":"sub_1"}"#

    static func redeemed(_ outcome: String = "redeemed") -> String {
        #"{"success":true,"outcome":"\#(outcome)","purchase":\#(purchaseJSON)}"#
    }

    static func redeemFailure(_ outcome: String) -> String {
        #"{"success":false,"outcome":"\#(outcome)","code":"\#(outcome)","error":"\#(outcome) link"}"#
    }
}

@Suite struct RedemptionTests {
    /// The outcome a client reads from one answer to `POST /api/redeem`.
    static func outcome(for answer: StubAnswer) async throws(StorefrontError) -> RedemptionOutcome {
        let stub = StubServer { request, _ in
            request.url.path == "/api/redeem" ? answer : .json(200, Fixtures.entitlements([]))
        }
        defer { stub.unregister() }
        return try await stub.client().redeem(URL(string: "https://\(stub.host)/redeem/tok_1")!)
    }

    @Test func everyAnswerOfTheContractIsAnOutcome() async throws {
        #expect(try await Self.outcome(for: .json(200, WebFirstFixtures.redeemed())) == .redeemed(WebFirstFixtures.purchase))
        #expect(try await Self.outcome(for: .json(200, WebFirstFixtures.redeemed("already_yours"))) == .alreadyYours(WebFirstFixtures.purchase))
        #expect(try await Self.outcome(for: .json(409, WebFirstFixtures.redeemFailure("belongs_to_another_user"))) == .belongsToAnotherUser)
        #expect(try await Self.outcome(for: .json(410, WebFirstFixtures.redeemFailure("expired"))) == .expired)
        #expect(try await Self.outcome(for: .json(404, WebFirstFixtures.redeemFailure("unknown"))) == .unknown)
        #expect(RedemptionOutcome.redeemed(WebFirstFixtures.purchase).purchase == WebFirstFixtures.purchase)
        #expect(RedemptionOutcome.expired.purchase == nil)
    }

    @Test func otherAnswersAreErrors() async throws {
        let limited = StubAnswer.json(
            429, #"{"success":false,"code":"rate_limited","error":"Too many redemptions"}"#, headers: ["Retry-After": "30"])
        await #expect(throws: StorefrontError.server(status: 429, message: "Too many redemptions")) { try await Self.outcome(for: limited) }
        // A server without the route answers the router's own 404: not "no such link".
        let noRoute = StubAnswer.json(404, #"{"success":false,"error":"Not found","code":"not_found"}"#)
        await #expect(throws: StorefrontError.notFound(message: "Not found")) { try await Self.outcome(for: noRoute) }
        let otherConflict = StubAnswer.json(409, #"{"success":false,"error":"busy","code":"in_progress"}"#)
        await #expect(throws: StorefrontError.server(status: 409, message: "busy")) { try await Self.outcome(for: otherConflict) }
        await #expect(throws: StorefrontError.unauthorized(message: "Invalid token")) {
            try await Self.outcome(for: .json(401, Fixtures.failure("Invalid token")))
        }
        let offline = await #expect(throws: StorefrontError.self) { try await Self.outcome(for: .failure(.notConnectedToInternet)) }
        #expect(offline?.isRetryable == true)
        let odd = await #expect(throws: StorefrontError.self) {
            try await Self.outcome(for: .json(200, #"{"success":true,"outcome":"redeemed"}"#))
        }
        guard case .invalidResponse = odd else {
            Issue.record("a redeemed answer without its purchase: \(String(describing: odd))")
            return
        }
    }

    @Test func theTokenIsTakenFromTheLinkOrTheText() async throws {
        let stub = StubServer { request, _ in
            request.url.path == "/api/redeem" ? .json(410, WebFirstFixtures.redeemFailure("expired")) : .json(200, Fixtures.entitlements([]))
        }
        defer { stub.unregister() }
        let client = stub.client()
        #expect(try await client.redeem(URL(string: "https://\(stub.host)/redeem/tok_A?utm_source=mail")!) == .expired)
        #expect(try await client.redeem(token: "  tok_B\n") == .expired)
        #expect(try await client.redeem(token: "https://shop.example.com/redeem/tok_C") == .expired, "a pasted link")
        #expect(stub.requests(to: "/api/redeem").map { $0.json?["token"] as? String } == ["tok_A", "tok_B", "tok_C"])
        let redeem = try #require(stub.requests(to: "/api/redeem").first)
        #expect(redeem.method == "POST" && redeem.header("Authorization") == "Bearer \(StubServer.jwt(subject: "user-1"))")

        // Not a redemption link: no request.
        #expect(try await client.redeem(URL(string: "https://\(stub.host)/products/ls_1")!) == .unknown)
        #expect(try await client.redeem(URL(string: "https://\(stub.host)/redeem")!) == .unknown)
        #expect(try await client.redeem(token: "   ") == .unknown)
        #expect(stub.requests(to: "/api/redeem").count == 3)
    }

    @Test func aRedemptionRefreshesWhatObserversSee() async throws {
        let redeemed = Flag()
        let stub = StubServer { request, _ in
            if request.url.path == "/api/redeem" {
                redeemed.set(true)
                return .json(200, WebFirstFixtures.redeemed())
            }
            return .json(200, Fixtures.entitlements(redeemed.isOn ? [Fixtures.entitlement()] : []))
        }
        defer { stub.unregister() }
        let client = stub.client()
        _ = try await client.entitlements()
        var updates = await client.entitlementUpdates().makeAsyncIterator()
        #expect(await updates.next() == [])
        #expect(try await client.redeem(URL(string: "https://\(stub.host)/redeem/tok_1")!) == .redeemed(WebFirstFixtures.purchase))
        #expect(await updates.next()?.isActive("premium") == true)
        #expect(stub.requests(to: "/api/entitlements").count == 2, "fetched again after the redemption, not answered from the fresh cache")
        #expect(try await client.isEntitled(to: "premium"))
    }

    @Test func anOutcomeWithoutAPurchaseFetchesNothing() async throws {
        let stub = StubServer { request, _ in
            request.url.path == "/api/redeem"
                ? .json(409, WebFirstFixtures.redeemFailure("belongs_to_another_user")) : .json(200, Fixtures.entitlements([]))
        }
        defer { stub.unregister() }
        #expect(try await stub.client().redeem(token: "tok_1") == .belongsToAnotherUser)
        #expect(stub.requests.map(\.url.path) == ["/api/redeem"])
    }
}

@Suite struct UniversalLinkTests {
    @Test func onlyTheBaseURLsHostAndRoutesAreStorefronts() {
        let client = StorefrontClient(baseURL: URL(string: "https://shop.example.com/")!) { "t" }
        func link(_ text: String) -> StorefrontClient.StorefrontLink? { client.storefrontLink(URL(string: text)!) }
        #expect(link("https://shop.example.com/redeem/tok_1") == .redemption(token: "tok_1"))
        #expect(link("https://SHOP.example.com/redeem/tok_1/") == .redemption(token: "tok_1"), "host case and a trailing slash")
        #expect(link("https://shop.example.com/checkout/complete?checkout_id=chk-1&trxref=T1") == .checkoutComplete(checkoutID: "chk-1"))
        #expect(link("https://shop.example.com/checkout/complete") == .checkoutComplete(checkoutID: nil))
        #expect(link("https://shop.example.com/checkout/complete?checkout_id=") == .checkoutComplete(checkoutID: nil))
        // Other hosts and schemes.
        #expect(link("https://evil.example/redeem/tok_1") == nil)
        #expect(link("https://www.shop.example.com/redeem/tok_1") == nil)
        #expect(link("https://shop.example.com.evil.example/redeem/tok_1") == nil)
        #expect(link("myapp://shop.example.com/redeem/tok_1") == nil)
        #expect(link("myapp://redeem/tok_1") == nil)
        // Other paths on the host.
        for path in ["/", "/redeem", "/redeem/", "/redeem/a/b", "/api/redeem", "/products", "/checkout", "/checkout/complete/x", "/paywall"] {
            #expect(link("https://shop.example.com\(path)") == nil, "\(path)")
        }

        // A base URL with a path: the routes are under it.
        let prefixed = StorefrontClient(baseURL: URL(string: "https://example.com/store")!) { "t" }
        #expect(prefixed.storefrontLink(URL(string: "https://example.com/store/redeem/tok_1")!) == .redemption(token: "tok_1"))
        #expect(prefixed.storefrontLink(URL(string: "https://example.com/redeem/tok_1")!) == nil)
    }

    @Test func aRedemptionLinkIsRedeemedAndAForeignOneLeftAlone() async throws {
        let stub = StubServer { request, _ in
            request.url.path == "/api/redeem" ? .json(200, WebFirstFixtures.redeemed()) : .json(200, Fixtures.entitlements([]))
        }
        defer { stub.unregister() }
        let client = stub.client()
        #expect(await client.handleUniversalLink(URL(string: "https://elsewhere.example/redeem/tok_1")!) == nil)
        #expect(await client.handleUniversalLink(URL(string: "https://\(stub.host)/account")!) == nil)
        #expect(stub.requests.isEmpty, "links that are not Storefront's cost no request")
        let result = await client.handleUniversalLink(URL(string: "https://\(stub.host)/redeem/tok_1")!)
        #expect(result == .redemption(.success(.redeemed(WebFirstFixtures.purchase))))
        #expect(stub.requests(to: "/api/redeem").first?.json?["token"] as? String == "tok_1")
    }

    @Test func aFailedRedemptionIsInTheResult() async {
        let stub = StubServer { _, _ in .json(429, #"{"success":false,"code":"rate_limited","error":"Slow down"}"#) }
        defer { stub.unregister() }
        let result = await stub.client().handleUniversalLink(URL(string: "https://\(stub.host)/redeem/tok_1")!)
        #expect(result == .redemption(.failure(.server(status: 429, message: "Slow down"))))
    }

    @Test func theCompletionPageIsACheckoutReturn() async throws {
        let stub = StubServer { request, _ in
            request.url.path == "/api/create-checkout" ? .json(200, Fixtures.checkout(id: "chk-1")) : .json(200, Fixtures.entitlements([]))
        }
        defer { stub.unregister() }
        let client = stub.client()
        _ = try await client.createCheckout(variantID: "ls_11")
        let fetchedBefore = stub.requests(to: "/api/entitlements").count
        let known = await client.handleUniversalLink(URL(string: "https://\(stub.host)/checkout/complete?checkout_id=chk-1")!)
        #expect(known == .checkoutReturn(checkoutID: "chk-1", isKnown: true))
        #expect(stub.requests(to: "/api/entitlements").count == fetchedBefore + 1, "entitlements refreshed")
        #expect(stub.requests(to: "/api/redeem").isEmpty, "a checkout this app opened is not redeemed")
    }

    /// A web paywall's completion page opened the app instead of showing its link: the
    /// kit redeems by checkout id, asking again while the purchase is pending (202).
    @Test func aWebCheckoutsCompletionPageIsRedeemedByItsCheckoutID() async throws {
        let asked = Mutex(0)
        let stub = StubServer { request, _ in
            guard request.url.path == "/api/redeem" else { return .json(200, Fixtures.entitlements([])) }
            let n = asked.withLock {
                $0 += 1; return $0
            }
            return n == 1
                ? .json(202, #"{"success":false,"outcome":"pending"}"#, headers: ["Retry-After": "2"])
                : .json(200, WebFirstFixtures.redeemed())
        }
        defer { stub.unregister() }
        let client = stub.client(options: StubServer.fastOptions(clock: ImmediateClock()))
        let web = await client.handleUniversalLink(URL(string: "https://\(stub.host)/checkout/complete?checkout_id=chk-web&ref=mail")!)
        #expect(web == .redemption(.success(.redeemed(WebFirstFixtures.purchase))))
        #expect(stub.requests(to: "/api/redeem").map { $0.json?["checkoutId"] as? String } == ["chk-web", "chk-web"])
        let unknown = StubServer { request, _ in
            request.url.path == "/api/redeem" ? .json(404, WebFirstFixtures.redeemFailure("unknown")) : .json(200, Fixtures.entitlements([]))
        }
        defer { unknown.unregister() }
        let plain = await unknown.client().handleUniversalLink(URL(string: "https://\(unknown.host)/checkout/complete?checkout_id=chk-x")!)
        #expect(plain == .checkoutReturn(checkoutID: "chk-x", isKnown: false), "not an anonymous checkout: a plain return")
    }
}

/// A clock whose waits end at once.
struct ImmediateClock: StorefrontClock {
    var now: Date { Date() }
    func sleep(for duration: Duration) async throws {}
}

@Suite struct RestoreTests {
    static let restored =
        #"{"success":true,"claimed":[\#(WebFirstFixtures.purchaseJSON)],"entitlements":[\#(Fixtures.entitlement())]}"#

    @Test func claimedPurchasesAndTheEntitlementsAfterReachTheCacheAndObservers() async throws {
        let stub = StubServer { request, _ in
            request.url.path == "/api/restore" ? .json(200, Self.restored) : .json(200, Fixtures.entitlements([]))
        }
        defer { stub.unregister() }
        let client = stub.client()
        _ = try await client.entitlements()
        var updates = await client.entitlementUpdates().makeAsyncIterator()
        #expect(await updates.next() == [])
        let result = try await client.restorePurchases()
        #expect(result.claimed == [WebFirstFixtures.purchase])
        #expect(result.entitlements.map(\.identifier) == ["premium"])
        #expect(await updates.next()?.isActive("premium") == true)
        #expect(try await client.isEntitled(to: "premium"), "answered from the restored list")
        #expect(stub.requests.map(\.url.path) == ["/api/entitlements", "/api/restore"])
        let restore = try #require(stub.requests(to: "/api/restore").first)
        #expect(restore.method == "POST" && restore.header("Authorization") == "Bearer \(StubServer.jwt(subject: "user-1"))")
    }

    @Test func nothingToClaimAndErrors() async throws {
        let empty = StubServer { _, _ in .json(200, #"{"success":true,"claimed":[],"entitlements":[]}"#) }
        defer { empty.unregister() }
        #expect(try await empty.client().restorePurchases() == RestoreResult(claimed: [], entitlements: []))

        let limited = StubServer { _, _ in .json(429, #"{"success":false,"code":"rate_limited","error":"Too many restores"}"#) }
        defer { limited.unregister() }
        await #expect(throws: StorefrontError.server(status: 429, message: "Too many restores")) { try await limited.client().restorePurchases() }
    }

    @Test func anAnonymousUserCannotRestore() async throws {
        let stub = StubServer { _, _ in .json(200, #"{"success":true,"claimed":[],"entitlements":[]}"#) }
        defer { stub.unregister() }
        let error = await #expect(throws: StorefrontError.self) {
            try await stub.anonymousClient(store: RecordingIdentityStore()).restorePurchases()
        }
        guard case .unauthorized = error else {
            Issue.record("expected unauthorized, got \(String(describing: error))")
            return
        }
        #expect(stub.requests.isEmpty, "refused before any request, the anonymous user included")
    }
}
