import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Synchronization
import Testing
@testable import StorefrontKit

/// StorefrontKit without a server: decoding the server's JSON exactly,
/// caching, errors, idempotency keys, purchase detection, return links and
/// the entitlement stream, over a `URLProtocol` stub.
@Suite struct DecodingTests {
    @Test func productsDecodeFromTheServersJSONAPIShape() throws {
        let products = try StorefrontClient.decode(ProductListBody.self, Data(Fixtures.products.utf8), what: "products").products.data
        #expect(products.count == 2)
        let pro = try #require(products.first)
        #expect(pro.id == "ls_1" && pro.variantID == "ls_11" && pro.type == "products")
        #expect(pro.name == "Pro Monthly" && pro.priceFormatted == "$9.99" && pro.descriptionText == "All pro features")
        #expect(pro.descriptionHTML == "<p>All <b>pro</b> features</p>")
        #expect(pro.buyNowURL == URL(string: "https://shop.example/buy/11"))
        #expect(pro.price == 999 && pro.currency == "USD" && pro.interval == "month" && pro.intervalCount == 1)
        #expect(pro.provider == .lemonSqueezy && pro.isTestMode && pro.isSubscription)
        let icons = products[1]
        #expect(icons.interval == nil && icons.intervalCount == nil && !icons.isSubscription, "explicit nulls for one-time items")
        #expect(icons.buyNowURL == nil, "an empty buy_now_url is no URL")
        #expect(icons.provider == .paystack && icons.priceFormatted == "₦5,000.00")
    }

    /// A subscription product's checkout is purchased once the subscription
    /// grants, not when its first order alone does (a Lemon Squeezy order may
    /// be projected a moment before its subscription).
    @Test func aSubscriptionCheckoutWaitsForWhatTheSubscriptionGrants() throws {
        let list = try StorefrontClient.decode(
            EntitlementsBody.self, Data(Fixtures.entitlements([Fixtures.entitlement(), Fixtures.lifetime]).utf8),
            what: "entitlements"
        ).entitlements
        let (subscription, purchase) = (list[0], list[1])
        #expect(StorefrontClient.ofKind([purchase], subscription: true) == nil)
        #expect(StorefrontClient.ofKind([subscription, purchase], subscription: true) == [subscription])
        #expect(StorefrontClient.ofKind([purchase], subscription: false) == [purchase])
    }

    @Test func entitlementsDecodeWithExplicitNullsAndMilliseconds() throws {
        let list = try StorefrontClient.decode(
            EntitlementsBody.self, Data(Fixtures.entitlements([Fixtures.entitlement(), Fixtures.lifetime]).utf8),
            what: "entitlements"
        ).entitlements
        let premium = try #require(list.first)
        #expect(premium.identifier == "premium" && premium.isActive && premium.willRenew && premium.periodType == .normal)
        #expect(premium.productID == "ls_1" && premium.provider == .lemonSqueezy && premium.source == .subscription && premium.isSandbox)
        #expect(premium.expiresAt.map(WireDate.format) == "2027-01-01T10:00:00.000Z")
        #expect(premium.originalPurchaseAt.map(WireDate.format) == "2026-11-01T10:00:00.123Z", "milliseconds survive")
        #expect(premium.unsubscribeDetectedAt == nil && premium.billingIssueDetectedAt == nil)
        let icons = list[1]
        #expect(icons.isLifetime && icons.source == .purchase && icons.originalPurchaseAt == nil)
        #expect(list.isActive("premium") && list.active.count == 2 && !list.isActive("gold"))
    }

    @Test func timestampsWithoutFractionParseAndBadOnesThrow() throws {
        #expect(WireDate.parse("2026-12-01T10:00:00Z").map(WireDate.format) == "2026-12-01T10:00:00.000Z")
        let bad = Fixtures.entitlement(latest: "yesterday")
        #expect(throws: StorefrontError.self) {
            try StorefrontClient.decode(EntitlementsBody.self, Data(Fixtures.entitlements([bad]).utf8), what: "entitlements")
        }
    }

    @Test func statusDecodesTheSeedFieldsAndStorefrontsExtras() throws {
        let status = try StorefrontClient.decode(SubscriptionStatus.self, Data(Fixtures.status(pending: "chk-9").utf8), what: "status")
        #expect(status.isActive && status.planName == "Pro Monthly" && status.subscriptionCode == "SUB_123" && status.emailToken == "tok_9")
        #expect(status.nextBillingDate.map(WireDate.format) == "2027-01-01T10:00:00.000Z")
        #expect(status.providerStatus == "active" && status.provider == .paystack && status.endsAt == nil && !status.cancelAtPeriodEnd)
        #expect(status.customerPortalURL == URL(string: "https://portal.example/manage"))
        #expect(status.entitlements.count == 1)
        let pending = try #require(status.pendingCheckout)
        #expect(pending.checkoutID == "chk-9" && pending.expiresAt == nil && WireDate.format(pending.createdAt) == "2026-12-01T09:59:00.000Z")

        let none = try StorefrontClient.decode(SubscriptionStatus.self, Data(Fixtures.noStatus.utf8), what: "status")
        #expect(!none.isActive && none.planName == nil && none.pendingCheckout == nil && none.entitlements.isEmpty)
    }

    @Test func modelsEncodeInTheServersShape() throws {
        let list = try StorefrontClient.decode(EntitlementsBody.self, Data(Fixtures.entitlements([Fixtures.entitlement()]).utf8), what: "e")
            .entitlements
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(list[0]), as: UTF8.self)
        #expect(text.contains(#""unsubscribe_detected_at":null"#), "explicit nulls: \(text)")
        #expect(text.contains(#""original_purchase_at":"2026-11-01T10:00:00.123Z""#))
        #expect(try JSONDecoder().decode(EntitlementInfo.self, from: Data(text.utf8)) == list[0])

        let status = try StorefrontClient.decode(SubscriptionStatus.self, Data(Fixtures.status(pending: "chk-1").utf8), what: "status")
        #expect(try JSONDecoder().decode(SubscriptionStatus.self, from: try encoder.encode(status)) == status)
        let products = try StorefrontClient.decode(ProductListBody.self, Data(Fixtures.products.utf8), what: "p").products.data
        #expect(try JSONDecoder().decode([Product].self, from: try encoder.encode(products)) == products)
        let change = try JSONDecoder().decode(SubscriptionChange.self, from: Data(Fixtures.cancelled.utf8))
        #expect(change.cancelAtPeriodEnd && change.providerStatus == "non-renewing" && change.renewsAt == nil)
        #expect(try JSONDecoder().decode(SubscriptionChange.self, from: try encoder.encode(change)) == change)
    }
}

@Suite struct CachingTests {
    @Test func productsAreRevalidatedWithTheirETag() async throws {
        let stub = StubServer { request, _ in
            request.header("If-None-Match") == #""v1""#
                ? .response(status: 304, headers: ["ETag": #""v1""#], body: Data())
                : .json(200, Fixtures.products, headers: ["ETag": #""v1""#])
        }
        defer { stub.unregister() }
        let client = stub.client()
        let first = try await client.products()
        let second = try await client.products()
        #expect(first == second && first.count == 2)
        #expect(stub.requests.map { $0.header("If-None-Match") } == [nil, #""v1""#])
        #expect(stub.requests.allSatisfy { $0.header("Authorization") == nil }, "the product list needs no token")

        _ = try await client.products(cachePolicy: .returnCacheIfFresh)
        #expect(stub.requests.count == 2, "a fresh cache answers without asking")
    }

    @Test func theProductListSurvivesOnDisk() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sfk-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        let stub = StubServer { request, _ in
            request.header("If-None-Match") == #""v7""#
                ? .response(status: 304, headers: [:], body: Data())
                : .json(200, Fixtures.products, headers: ["ETag": #""v7""#])
        }
        defer { stub.unregister() }
        let first = try await stub.client(options: StubServer.fastOptions(cacheDirectory: folder)).products()
        // A new client (the app launched again) revalidates what the last one stored.
        let relaunched = stub.client(options: StubServer.fastOptions(cacheDirectory: folder))
        let second = try await relaunched.products()
        #expect(second == first)
        #expect(stub.requests.last?.header("If-None-Match") == #""v7""#)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1)
    }

    @Test func entitlementsAreCachedBrieflyAndReloadedOnDemand() async throws {
        let stub = StubServer { _, _ in .json(200, Fixtures.entitlements([Fixtures.entitlement()])) }
        defer { stub.unregister() }
        let client = stub.client()
        _ = try await client.entitlements()
        _ = try await client.entitlements()
        #expect(stub.requests.count == 1)
        _ = try await client.entitlements(cachePolicy: .reload)
        #expect(stub.requests.count == 2)
        #expect(try await client.isEntitled(to: "premium") && stub.requests.count == 2)

        var options = StubServer.fastOptions()
        options.entitlementsLifetime = .zero
        let uncached = stub.client(options: options)
        _ = try await uncached.entitlements()
        _ = try await uncached.entitlements()
        #expect(stub.requests.count == 4, "a zero lifetime always asks")
        #expect(stub.requests.allSatisfy { $0.header("Authorization")?.hasPrefix("Bearer ") == true })
    }

    @Test func statusRefreshesTheEntitlementCache() async throws {
        let stub = StubServer { request, _ in
            request.url.path == "/api/subscription/status" ? .json(200, Fixtures.status()) : .json(500, Fixtures.failure("no"))
        }
        defer { stub.unregister() }
        let client = stub.client()
        _ = try await client.status()
        #expect(try await client.entitlements().isActive("premium"), "answered from the status's list")
        _ = try await client.status()
        #expect(stub.requests.count == 1)
    }

    @Test func anotherUsersTokenDropsTheCache() async throws {
        let user = Mutex("alice")
        let stub = StubServer { request, _ in
            let isAlice = request.header("Authorization") == "Bearer \(StubServer.jwt(subject: "alice"))"
            return .json(200, Fixtures.entitlements(isAlice ? [Fixtures.entitlement()] : []))
        }
        defer { stub.unregister() }
        let client = stub.client(token: { StubServer.jwt(subject: user.withLock { $0 }) })
        #expect(try await client.entitlements().isActive("premium"))
        user.withLock { $0 = "bob" }
        #expect(try await client.entitlements().isEmpty, "bob never sees alice's cached entitlements")
        #expect(stub.requests.count == 2)
    }
}

@Suite struct ErrorTests {
    static func error(for answer: StubAnswer) async -> StorefrontError? {
        let stub = StubServer { _, _ in answer }
        defer { stub.unregister() }
        do {
            _ = try await stub.client().entitlements()
            return nil
        } catch {
            return error
        }
    }

    @Test func statusesBecomeTypedErrorsWithTheServersMessage() async {
        #expect(await Self.error(for: .json(401, Fixtures.failure("Invalid token"))) == .unauthorized(message: "Invalid token"))
        #expect(await Self.error(for: .json(403, Fixtures.failure("email does not match"))) == .forbidden(message: "email does not match"))
        #expect(await Self.error(for: .json(404, Fixtures.failure("Subscription not found"))) == .notFound(message: "Subscription not found"))
        #expect(
            await Self.error(
                for: .json(
                    503, Fixtures.failure("Payment provider paystack is unavailable; try again later"),
                    headers: ["Retry-After": "7"]))
                == .providerUnavailable(message: "Payment provider paystack is unavailable; try again later", retryAfter: .seconds(7)))
        #expect(
            await Self.error(for: .json(422, Fixtures.failure("Idempotency-Key was already used")))
                == .server(status: 422, message: "Idempotency-Key was already used"))
        // nginx's own pages are HTML: the status text stands in for the message.
        let gateway = await Self.error(for: .response(status: 502, headers: ["Content-Type": "text/html"], body: Data("<html>bad</html>".utf8)))
        guard case .providerUnavailable(let message, nil) = gateway else {
            Issue.record("502 answered \(String(describing: gateway))")
            return
        }
        #expect(!message.isEmpty && !message.contains("<html>"))
    }

    @Test func transportFailuresAreNetworkErrors() async {
        let error = await Self.error(for: .failure(.notConnectedToInternet))
        guard case .network(let message) = error else {
            Issue.record("expected a network error, got \(String(describing: error))")
            return
        }
        #expect(message.contains("offline"), "\(message)")
        #expect(error?.isRetryable == true)
    }

    @Test func unreadableAnswersAreInvalidResponses() async {
        let error = await Self.error(for: .json(200, #"{"success":true,"entitlements":[{"identifier":"x"}]}"#))
        guard case .invalidResponse(let message) = error else {
            Issue.record("expected invalidResponse, got \(String(describing: error))")
            return
        }
        #expect(message.contains("is_active"), "names the missing key: \(message)")
    }

    @Test func a401IsRetriedOnceWithANewerToken() async throws {
        let calls = Mutex(0)
        let stub = StubServer { request, _ in
            request.header("Authorization") == "Bearer \(StubServer.jwt(subject: "u"))x"
                ? .json(401, Fixtures.failure("Token expired"))
                : .json(200, Fixtures.entitlements([]))
        }
        defer { stub.unregister() }
        // The first token is stale; the provider returns a fresh one when asked again.
        let client = stub.client(token: {
            let n = calls.withLock { value -> Int in
                value += 1; return value
            }
            return StubServer.jwt(subject: "u") + (n == 1 ? "x" : "")
        })
        #expect(try await client.entitlements(cachePolicy: .reload).isEmpty)
        #expect(stub.requests.count == 2)

        let stale = StubServer { _, _ in .json(401, Fixtures.failure("Token expired")) }
        defer { stale.unregister() }
        await #expect(throws: StorefrontError.unauthorized(message: "Token expired")) {
            try await stale.client().entitlements()
        }
        #expect(stale.requests.count == 1, "the same token is not sent twice")
    }

    @Test func aFailingTokenProviderIsUnauthorized() async {
        struct SignedOut: Error {}
        let stub = StubServer { _, _ in .json(200, Fixtures.entitlements([])) }
        defer { stub.unregister() }
        let client = stub.client(token: { throw SignedOut() })
        var error: StorefrontError?
        do { _ = try await client.entitlements() } catch let failure { error = failure }
        guard case .unauthorized = error else {
            Issue.record("expected unauthorized, got \(String(describing: error))")
            return
        }
        #expect(stub.requests.isEmpty)
    }
}

@Suite struct CheckoutTests {
    @Test func eachCheckoutHasItsOwnKeyAndRetriesKeepIt() async throws {
        let attempts = Mutex(0)
        let stub = StubServer { request, _ in
            if request.url.path == "/api/entitlements" { return .json(200, Fixtures.entitlements([])) }
            let number = attempts.withLock { count -> Int in
                count += 1; return count
            }
            // The first attempt is lost on the way back; its retry must carry the same key.
            return number == 1 ? .failure(.networkConnectionLost) : .json(200, Fixtures.checkout(id: "chk-\(number)"))
        }
        defer { stub.unregister() }
        let client = stub.client()
        let product = Product(id: "ls_1", variantID: "ls_11", name: "Pro", priceFormatted: "$9", provider: .lemonSqueezy)
        let first = try await client.createCheckout(for: product, email: "ada@example.com")
        let second = try await client.createCheckout(variantID: "ls_11")
        let posts = stub.requests.filter { $0.method == "POST" }
        #expect(posts.count == 3)
        guard posts.count == 3 else { return }
        #expect(posts[0].header("Idempotency-Key") == posts[1].header("Idempotency-Key"), "a retry of one attempt reuses its key")
        #expect(posts[2].header("Idempotency-Key") != posts[0].header("Idempotency-Key"), "a new attempt has a new key")
        #expect(first.idempotencyKey == posts[0].header("Idempotency-Key") && second.idempotencyKey == posts[2].header("Idempotency-Key"))
        #expect(posts[0].json?["variantId"] as? String == "ls_11" && posts[0].json?["productId"] as? String == "ls_1")
        #expect(posts[0].json?["customerEmail"] as? String == "ada@example.com")
        #expect(posts[2].json?["customerEmail"] == nil && posts[2].json?["productId"] == nil, "absent fields are left out")
        #expect(first.url.absoluteString == "https://sandbox.example/checkout/lemonsqueezy/abc?embed=0")
        #expect(first.provider == .lemonSqueezy && first.expiresAt.map(WireDate.format) == "2030-01-01T00:00:00.000Z")
    }

    @Test func aProviderOutageIsNotRetriedButTyped() async throws {
        let stub = StubServer { request, _ in
            request.method == "POST"
                ? .json(503, Fixtures.failure("Payment provider lemonsqueezy is unavailable; try again later"), headers: ["Retry-After": "5"])
                : .json(200, Fixtures.entitlements([]))
        }
        defer { stub.unregister() }
        await #expect(
            throws: StorefrontError.providerUnavailable(
                message: "Payment provider lemonsqueezy is unavailable; try again later", retryAfter: .seconds(5))
        ) {
            try await stub.client().createCheckout(variantID: "ls_11")
        }
        #expect(stub.requests.filter { $0.method == "POST" }.count == 1)
    }

    @Test func cancelUsesTheStatusSubscriptionAndEmailToken() async throws {
        let stub = StubServer { request, _ in
            switch request.url.path {
            case "/api/subscription/status": .json(200, Fixtures.status())
            case "/api/subscription/cancel": .json(200, Fixtures.cancelled)
            default: .json(200, Fixtures.entitlements([Fixtures.entitlement()]))
            }
        }
        defer { stub.unregister() }
        let change = try await stub.client().cancel()
        #expect(change.cancelAtPeriodEnd && change.subscriptionCode == "SUB_123")
        let post = try #require(stub.requests.first { $0.method == "POST" })
        #expect(post.json?["subscription_code"] as? String == "SUB_123" && post.json?["email_token"] as? String == "tok_9")

        let empty = StubServer { _, _ in .json(200, Fixtures.noStatus) }
        defer { empty.unregister() }
        await #expect(throws: StorefrontError.notFound(message: "There is no subscription to resume")) { try await empty.client().resume() }
    }
}

@Suite struct PurchaseTests {
    @Test func thePurchaseShowsUpOnceThePendingCheckoutClears() async throws {
        let stub = StubServer { request, number in
            switch request.url.path {
            case "/api/entitlements": return .json(200, Fixtures.entitlements([]))
            case "/api/create-checkout": return .json(200, Fixtures.checkout(id: "chk-1"))
            default:
                // Not projected yet, then pending, then paid.
                let polls = number - 2
                if polls < 1 { return .json(200, Fixtures.noStatus) }
                if polls < 3 { return .json(200, Fixtures.pendingOnly("chk-1")) }
                return .json(200, Fixtures.status(entitlements: [Fixtures.entitlement(latest: "2026-12-01T10:05:00.000Z")]))
            }
        }
        defer { stub.unregister() }
        let client = stub.client()
        let checkout = try await client.createCheckout(variantID: "ls_11")
        // A bound, not a pace: it returns as soon as the purchase shows (a loaded test machine is slow).
        let outcome = try await client.awaitPurchase(checkout, timeout: .seconds(60))
        guard case .purchased(let granted) = outcome else {
            Issue.record("expected a purchase, got \(outcome)")
            return
        }
        #expect(granted.map(\.identifier) == ["premium"])
    }

    @Test func aRenewalOfAnEntitlementAlreadyHeldCounts() async throws {
        let before = Fixtures.entitlement(latest: "2026-11-01T10:00:00.000Z")
        let stub = StubServer { request, number in
            switch request.url.path {
            case "/api/entitlements": return .json(200, Fixtures.entitlements([before]))
            case "/api/create-checkout": return .json(200, Fixtures.checkout(id: "chk-2"))
            default:
                return number < 4
                    ? .json(200, Fixtures.status(entitlements: [before], pending: "chk-2"))
                    : .json(200, Fixtures.status(entitlements: [Fixtures.entitlement(latest: "2026-12-01T10:00:00.000Z")]))
            }
        }
        defer { stub.unregister() }
        let client = stub.client()
        let checkout = try await client.createCheckout(variantID: "ls_11")
        #expect(try await client.awaitPurchase(checkout, timeout: .seconds(60)) != .timedOut)
    }

    @Test func anUnpaidCheckoutExpiresAndASilentOneTimesOut() async throws {
        let soon = WireDate.format(Date().addingTimeInterval(0.3))
        let stub = StubServer { request, _ in
            switch request.url.path {
            case "/api/entitlements": .json(200, Fixtures.entitlements([]))
            case "/api/create-checkout": .json(200, Fixtures.checkout(id: "chk-3", expiresAt: soon))
            default: .json(200, Fixtures.noStatus)
            }
        }
        defer { stub.unregister() }
        let client = stub.client()
        let checkout = try await client.createCheckout(variantID: "ls_11")
        #expect(try await client.awaitPurchase(checkout, timeout: .seconds(60)) == .expired)

        // The timeout cuts a poll pause short: with 60 s pauses, a client that
        // slept its whole pause would take a minute (the bound leaves room for a loaded machine).
        var slow = StubServer.fastOptions(returnURLs: [])
        slow.pollInitialDelay = .seconds(60)
        slow.pollMaximumDelay = .seconds(60)
        let start = ContinuousClock.now
        #expect(try await stub.client(options: slow).awaitPurchase(checkoutID: "someone-elses", timeout: .milliseconds(300)) == .timedOut)
        #expect(ContinuousClock.now - start < .seconds(30))
    }

    @Test func pollingSurvivesOutagesButNotABadToken() async throws {
        let stub = StubServer { _, number in
            number == 0 ? .failure(.timedOut) : number == 1 ? .json(503, Fixtures.failure("busy")) : .json(401, Fixtures.failure("Invalid token"))
        }
        defer { stub.unregister() }
        await #expect(throws: StorefrontError.unauthorized(message: "Invalid token")) {
            try await stub.client().awaitPurchase(checkoutID: "chk", timeout: .seconds(60))
        }
    }

    @Test func aReturnLinkWakesTheWaitAtOnce() async throws {
        let paid = Mutex(false)
        let stub = StubServer { request, _ in
            switch request.url.path {
            case "/api/entitlements": .json(200, Fixtures.entitlements([]))
            case "/api/create-checkout": .json(200, Fixtures.checkout(id: "chk-4"))
            default: paid.withLock { $0 } ? .json(200, Fixtures.status()) : .json(200, Fixtures.pendingOnly("chk-4"))
            }
        }
        defer { stub.unregister() }
        var options = StubServer.fastOptions(returnURLs: [URL(string: "myapp://purchase-complete")!])
        options.pollInitialDelay = .seconds(180)
        options.pollMaximumDelay = .seconds(180)
        let client = stub.client(options: options)
        let checkout = try await client.createCheckout(variantID: "ls_11")
        let start = ContinuousClock.now
        async let outcome = client.awaitPurchase(checkout, timeout: .seconds(300))
        // Let it make its first poll and start its 180 s pause.
        while !stub.requests.contains(where: { $0.url.path == "/api/subscription/status" }) { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(100))
        paid.withLock { $0 = true }
        #expect(client.handleRedirect(URL(string: "myapp://purchase-complete?ok=1")!))
        guard case .purchased = try await outcome else {
            Issue.record("expected a purchase")
            return
        }
        // A bound (a loaded CI machine once took 14 s), far below the pause.
        #expect(ContinuousClock.now - start < .seconds(90), "woken by the return link, not by the 180 s pause")
    }

    @Test func returnLinksAreRecognisedExactly() {
        let client = StorefrontClient(
            baseURL: URL(string: "https://shop.example.com/")!,
            options: .init(returnURLs: [URL(string: "myapp://purchase-complete")!, URL(string: "https://app.example.com/bought")!])
        ) { "t" }
        #expect(client.isReturnURL(URL(string: "myapp://purchase-complete")!))
        #expect(client.isReturnURL(URL(string: "MyApp://purchase-complete/ok?x=1")!))
        #expect(client.isReturnURL(URL(string: "https://app.example.com/bought/123")!))
        #expect(client.isReturnURL(URL(string: "https://shop.example.com/checkout/complete?trxref=T1&reference=T1")!), "the gateway's page")
        #expect(!client.isReturnURL(URL(string: "myapp://settings")!))
        #expect(!client.isReturnURL(URL(string: "https://app.example.com/boughtx")!))
        #expect(!client.isReturnURL(URL(string: "https://evil.example/checkout/complete")!))
        #expect(!client.handleRedirect(URL(string: "myapp://settings")!))
    }
}

@Suite struct EntitlementStreamTests {
    @Test func theStreamReportsEachChangeOnce() async throws {
        let answers = Mutex([Fixtures.entitlements([]), Fixtures.entitlements([]), Fixtures.entitlements([Fixtures.entitlement()])])
        let stub = StubServer { _, _ in
            .json(200, answers.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] })
        }
        defer { stub.unregister() }
        let client = stub.client()
        var updates = await client.entitlementUpdates().makeAsyncIterator()
        _ = try await client.entitlements(cachePolicy: .reload)
        #expect(await updates.next() == [])
        _ = try await client.entitlements(cachePolicy: .reload) // the same list: nothing new
        _ = try await client.entitlements(cachePolicy: .reload)
        #expect(await updates.next()?.isActive("premium") == true)

        // A late subscriber starts from the current list; sign-out reports an empty one.
        var late = await client.entitlementUpdates().makeAsyncIterator()
        #expect(await late.next()?.count == 1)
        await client.reset()
        #expect(await late.next() == [])
        #expect(await updates.next() == [])
    }
}
