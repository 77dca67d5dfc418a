import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import HTTPClient
import StorefrontKit
import TestSupport
import Testing

/// Helpers for StorefrontKit against a live stack (sandbox, broker,
/// PostgreSQL, the services and the gateway, as `scripts/stack.sh` starts them).
enum LiveKit {
    /// The app link the completion page offers. `&` and `'` prove the page
    /// escapes it for its attribute (the browser must read back exactly this).
    static let appReturnURL = "storefrontkit-test://purchase-complete?from=checkout&note='ok'"

    /// A new app user and a client for it, the way an app makes one.
    static func client(_ stack: LiveStack, token fixed: String? = nil) async throws -> (client: StorefrontClient, email: String) {
        let subject = "kit-\(UUID().uuidString.prefix(8).lowercased())"
        let email = "\(subject)@example.com"
        let token: String
        if let fixed { token = fixed } else { token = try await stack.token(subject: subject, email: email) }
        let options = StorefrontClient.Options(
            returnURLs: [URL(string: appReturnURL)!], pollInitialDelay: .milliseconds(200),
            pollMaximumDelay: .seconds(1))
        let client = StorefrontClient(baseURL: URL(string: stack.gateway)!, options: options) { token }
        return (client, email)
    }

    /// A subscription product of `provider` from the list.
    static func subscription(_ products: [Product], _ provider: String) throws -> Product {
        try #require(products.first { $0.provider.rawValue == provider && $0.isSubscription }, "a \(provider) subscription is listed")
    }

    /// Whether `entitlement` comes from `product`: its product id is the
    /// catalog id of the entry bought (`ls_<product>.<variant>` for one variant
    /// of a multi-variant product, never the product's own id).
    static func grants(_ entitlement: EntitlementInfo, _ product: Product) -> Bool {
        entitlement.productID == product.id
    }

    /// Presses Pay on the sandbox's hosted page without a browser (its form posts to `<page>/pay`).
    static func pay(_ stack: LiveStack, _ checkout: CheckoutSession) async throws {
        let page = checkout.url.absoluteString.split(separator: "?", maxSplits: 1)[0]
        let response = try await stack.request(.post, page + "/pay", headers: [("Content-Type", "application/x-www-form-urlencoded")])
        #expect([200, 303].contains(response.status), "pay answered \(response.status)")
    }

    /// `body`'s value, or nil when `limit` passes first.
    static func within<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async -> T) async -> T? {
        await withTaskGroup(of: T?.self) { group in
            group.addTask { await body() }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// The statuses the gateway logged for StorefrontKit's `GET /api/products` requests, oldest first.
    static func productListStatuses(_ stack: LiveStack) throws -> [Int] {
        let log = try String(contentsOfFile: stack.state + "/logs/gateway-access.log", encoding: .utf8)
        return log.split(separator: "\n").filter { $0.contains("\"GET /api/products HTTP/") && $0.contains("StorefrontKit/1") }.compactMap { line in
            // combined format: … "GET /api/products HTTP/1.1" 304 0 "-" "StorefrontKit/1"
            guard let version = line.range(of: " HTTP/"), let end = line.range(of: "\" ", range: version.upperBound..<line.endIndex) else {
                return nil
            }
            return Int(line[end.upperBound...].prefix { $0.isNumber })
        }
    }
}

/// StorefrontKit as an app uses it, against real processes through the gateway.
@Suite(.serialized, .liveStack(["CHECKOUT_APP_RETURN_URL": LiveKit.appReturnURL]))
struct StorefrontKitLiveTests {
    var stack: LiveStack { get throws { try LiveStack.required() } }

    @Test func listsProductsAndRevalidatesWithTheETag() async throws {
        let stack = try self.stack
        let (client, _) = try await LiveKit.client(stack)
        // Other suites on this stack list products too: look only at lines
        // logged after this point.
        let before = try LiveKit.productListStatuses(stack).count
        let first = try await client.products()
        #expect(Set(first.map(\.provider)) == [.lemonSqueezy, .paystack, .stripe], "every provider's products are listed")
        #expect(first.allSatisfy { !$0.id.isEmpty && !$0.variantID.isEmpty && !$0.name.isEmpty && !$0.priceFormatted.isEmpty })
        #expect(first.contains { $0.isSubscription } && first.contains { !$0.isSubscription })
        let second = try await client.products()
        #expect(second == first)
        // The server's view: the second request was answered 304 Not Modified.
        // The gateway writes its access line after the response has gone out,
        // so the client can be here before the line is. Other tests' clients
        // start with empty caches, so a 304 among the new lines is this one's.
        _ = try await eventually(timeout: .seconds(30)) { try LiveKit.productListStatuses(stack).dropFirst(before).contains(304) }
        let statuses = Array(try LiveKit.productListStatuses(stack).dropFirst(before))
        #expect(statuses.count >= 2 && statuses.first == 200 && statuses.contains(304), "gateway log since the test began: \(statuses)")
    }

    @Test(arguments: ["lemonsqueezy", "paystack", "stripe"])
    func buysWaitsForThePurchaseCancelsAndResumes(provider: String) async throws {
        let stack = try self.stack
        let (client, email) = try await LiveKit.client(stack)
        let product = try LiveKit.subscription(try await client.products(), provider)
        let before = try await client.status()
        #expect(!before.isActive && before.pendingCheckout == nil && before.entitlements.isEmpty)

        let updates = await client.entitlementUpdates()
        let observed = Task { () -> [EntitlementInfo]? in
            for await list in updates where !list.active.isEmpty { return list }
            return nil
        }
        let checkout = try await client.createCheckout(for: product, email: email)
        #expect(checkout.url.absoluteString.hasPrefix(stack.sandbox) && !checkout.checkoutID.isEmpty)
        #expect(checkout.provider?.rawValue == provider && checkout.expiresAt != nil)
        // The app opens the page; the buyer pays.
        try await LiveKit.pay(stack, checkout)

        let outcome = try await client.awaitPurchase(checkout, timeout: .seconds(60))
        guard case .purchased(let granted) = outcome else {
            Issue.record("awaitPurchase answered \(outcome)")
            return
        }
        let entitlement = try #require(granted.first { LiveKit.grants($0, product) }, "\(product.id): \(granted)")
        #expect(entitlement.isActive && entitlement.source == .subscription && entitlement.provider.rawValue == provider && entitlement.isSandbox)
        #expect(entitlement.expiresAt != nil && entitlement.willRenew && entitlement.latestPurchaseAt != nil)
        let seen = await LiveKit.within(.seconds(10)) { await observed.value ?? nil }
        observed.cancel()
        #expect(seen??.isActive(entitlement.identifier) == true, "the entitlement stream reported the purchase")

        let status = try await client.status(cachePolicy: .reload)
        #expect(status.isActive && status.pendingCheckout == nil && status.provider?.rawValue == provider)
        #expect(status.subscriptionCode != nil && status.nextBillingDate != nil && status.planName?.isEmpty == false)

        let cancelled = try await client.cancel()
        #expect(cancelled.cancelAtPeriodEnd && cancelled.subscriptionCode == status.subscriptionCode)
        let statuses = ["lemonsqueezy": "cancelled", "paystack": "non-renewing", "stripe": "active"]
        #expect(cancelled.providerStatus == statuses[provider], "each provider's own word for a cancelled-at-period-end subscription")
        let afterCancel = try await stack.eventually("the cancellation projected") { () -> SubscriptionStatus? in
            let status = try await client.status(cachePolicy: .reload)
            return status.cancelAtPeriodEnd ? status : nil
        }
        #expect(afterCancel.isActive && afterCancel.nextBillingDate == nil, "access lasts to the period's end; no more charges")
        let whileCancelled = try await client.entitlements(cachePolicy: .reload).first { $0.identifier == entitlement.identifier }
        #expect(whileCancelled?.isActive == true && whileCancelled?.willRenew == false)

        let resumed = try await client.resume()
        #expect(resumed.providerStatus == "active" && !resumed.cancelAtPeriodEnd)
        _ = try await stack.eventually("the resume projected") { () -> SubscriptionStatus? in
            let status = try await client.status(cachePolicy: .reload)
            return !status.cancelAtPeriodEnd && status.providerStatus == "active" ? status : nil
        }
        let renewing = try await client.entitlements(cachePolicy: .reload).first { $0.identifier == entitlement.identifier }
        #expect(renewing?.isActive == true && renewing?.willRenew == true)
    }

    @Test func badTokensAreUnauthorizedAndUnknownVariantsNotFound() async throws {
        let stack = try self.stack
        let good = try await stack.token(subject: "kit-intruder", email: nil)
        let forged = String(good.dropLast(3)) + (good.hasSuffix("AAA") ? "BBB" : "AAA")
        for token in ["not-a-jwt", forged] {
            let (client, _) = try await LiveKit.client(stack, token: token)
            await #expect(throws: StorefrontError.unauthorized(message: "Invalid token")) { try await client.entitlements() }
            await #expect(throws: StorefrontError.unauthorized(message: "Invalid token")) { try await client.status() }
            await #expect(throws: StorefrontError.unauthorized(message: "Invalid token")) { try await client.createCheckout(variantID: "ls_1") }
            #expect(try await !client.products().isEmpty, "the product list needs no token")
        }
        let (client, _) = try await LiveKit.client(stack)
        await #expect(throws: StorefrontError.notFound(message: "Unknown variant ls_987654")) {
            try await client.createCheckout(variantID: "ls_987654")
        }
        await #expect(throws: StorefrontError.notFound(message: "There is no subscription to cancel")) { try await client.cancel() }
    }

    @Test func theCompletionPageEscapesWhatItEchoes() async throws {
        let stack = try self.stack
        let response = try await stack.request(.get, stack.gateway + "/checkout/complete?trxref=%3Cscript%3Ealert(1)%3C%2Fscript%3E%22")
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(response.headers["Content-Security-Policy"]?.contains("default-src 'none'") == true)
        #expect(response.headers["Cache-Control"] == "no-store")
        let page = response.bodyString
        #expect(page.contains("Payment received"))
        #expect(!page.contains("<script"), "nothing echoed is markup")
        #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;"), "the reference is shown, escaped")
        #expect(page.contains(#"href="storefrontkit-test://purchase-complete?from=checkout&amp;note=&#39;ok&#39;""#))
    }

    /// A buyer in headless Chromium: the hosted checkout, Pay, and the page they land on.
    @Test(.timeLimit(.minutes(3)), arguments: ["lemonsqueezy", "paystack", "stripe"])
    func aBuyerInABrowserLandsOnTheCompletionPage(provider: String) async throws {
        let stack = try self.stack
        let (client, email) = try await LiveKit.client(stack)
        let product = try LiveKit.subscription(try await client.products(), provider)
        let checkout = try await client.createCheckout(for: product, email: email)

        let browser = try await Browser.start()
        do {
            try await browser.open(checkout.url.absoluteString)
            #expect(try await browser.title.hasPrefix("Checkout"), "the hosted checkout page opened")
            try await browser.click(try await browser.element("button[type=submit]"))
            let landed = try await browser.waitForURL { $0.hasPrefix(stack.gateway + "/checkout/complete") }
            #expect(try await browser.title == "Payment received")
            #expect(try await browser.text(try await browser.element("#title")) == "Payment received")
            let link = try await browser.attribute("href", of: try await browser.element("#return-to-app"))
            #expect(link == LiveKit.appReturnURL, "the page links back to the app, unchanged by escaping")
            if provider == "paystack" {
                // Paystack appends ?trxref=…&reference=…; the page shows it.
                #expect(try await !browser.text(try await browser.element("#reference")).isEmpty)
            }
            // Both the page's own URL (a universal link) and the app link it offers are return links.
            #expect(client.handleRedirect(try #require(URL(string: landed))))
            #expect(client.handleRedirect(try #require(URL(string: link ?? ""))))
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()

        let outcome = try await client.awaitPurchase(checkout, timeout: .seconds(60))
        guard case .purchased(let granted) = outcome else {
            Issue.record("awaitPurchase answered \(outcome)")
            return
        }
        #expect(granted.contains { LiveKit.grants($0, product) && $0.isActive }, "\(product.id): \(granted)")
    }
}

/// The providers go away (the sandbox process stops): checkouts fail with
/// the typed provider error while the catalog keeps its last good list.
/// Its own stack, since the sandbox does not come back.
@Suite(.serialized, .liveStack()) struct StorefrontKitOutageTests {
    @Test func aProviderOutageIsAProviderUnavailableError() async throws {
        let stack = try LiveStack.required()
        let (client, email) = try await LiveKit.client(stack)
        let products = try await client.products()
        let chosen = [try LiveKit.subscription(products, "lemonsqueezy"), try LiveKit.subscription(products, "paystack")]

        try stack.signal(SIGTERM, to: "pids/provider-sandbox.pid")
        _ = try await stack.eventually("the sandbox stopped") { () -> Bool? in
            (try? await stack.request(.get, stack.sandbox + "/healthz")) == nil ? true : nil
        }
        for product in chosen {
            do {
                let checkout = try await client.createCheckout(for: product, email: email)
                Issue.record("a checkout was created during the outage: \(checkout)")
            } catch {
                guard case .providerUnavailable(let message, let retryAfter) = error else {
                    Issue.record("\(product.provider) outage answered \(error)")
                    continue
                }
                #expect(message == "Payment provider \(product.provider.rawValue) is unavailable; try again later")
                #expect(retryAfter != nil && error.isRetryable)
            }
        }
        #expect(try await client.products() == products, "the catalog serves its last good list")
    }
}
