import CryptoPrimitives
import Foundation
import HTTPClient
import Postgres
import Testing

/// A buyer without an account, as the web-first routes meet one
/// (docs/app-developers.md, "Web-first purchases"): checkouts without a
/// token, the completion page's redemption link, redemption, anonymous
/// users, alias and restore, through the gateway of a live stack.
///
/// Each buyer has an address of its own: the suites' stacks trust
/// 127.0.0.1 as a proxy in front of the gateway (as a TLS front would be),
/// so a request's `X-Forwarded-For` is its client's address, and the
/// per-address limits (anonymous checkouts, redemption attempts) count each
/// buyer apart rather than every test as one client.
struct WebFirstBuyer {
    let stack: LiveStack
    /// The buyer's client address (a documentation range; only ever a header).
    let address: String

    var forwarded: [(String, String)] { [("X-Forwarded-For", address)] }

    /// `POST path` with a JSON body, from this buyer's address; the answer's status and JSON object.
    func post(_ path: String, token: String? = nil, json: String = "{}") async throws -> (status: Int, body: [String: Any]) {
        let response = try await stack.request(.post, stack.gateway + path, token: token, json: json, headers: forwarded)
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        return (response.status, object ?? ["raw": response.bodyString])
    }

    /// `POST url` with a form-encoded body, from this buyer's address.
    func postForm(_ url: String, _ form: String) async throws -> HTTPClientResponse {
        var headers = HTTPHeaders(forwarded)
        headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        var request = HTTPClientRequest(method: .post, url: url, headers: headers, body: Array(form.utf8))
        request.retryPolicy = RetryPolicy.none
        request.timeout = .seconds(20)
        return try await stack.http.execute(request)
    }

    /// A catalog variant of `provider` (a subscription, or a one-time product).
    func product(_ provider: String, subscription: Bool = true) async throws -> (productID: String, variantID: String) {
        let lister = PurchaseFlow(stack: stack, provider: provider, subject: "", email: "", token: "")
        return subscription ? try await lister.subscriptionProduct() : try await lister.oneTimeProduct()
    }

    /// `POST /api/create-checkout` without a token (or with `token`, e.g. an
    /// anonymous user's), for a subscription or a one-time product.
    func checkout(
        _ provider: String, email: String?, ref: String? = nil, token: String? = nil, subscription: Bool = true
    ) async throws -> (checkoutID: String, url: String) {
        let product = try await product(provider, subscription: subscription)
        var fields = ["variantId": product.variantID, "productId": product.productID]
        if let email { fields["customerEmail"] = email }
        if let ref { fields["ref"] = ref }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]), as: UTF8.self)
        let (status, body) = try await post("/api/create-checkout", token: token, json: json)
        try #require(status == 200, "create-checkout without an account answered \(status): \(body)")
        #expect(body["success"] as? Bool == true && body["provider"] as? String == provider && body["expiresAt"] is String)
        let url = try #require(body["checkoutUrl"] as? String)
        #expect(url.hasPrefix(stack.sandbox), "the provider's hosted page: \(url)")
        return (try #require(body["checkoutId"] as? String), url)
    }

    /// Presses Pay on the sandbox's hosted page with `email` typed in (the
    /// page's form posts to `<page path>/pay`), as a browser would.
    func pay(_ checkoutURL: String, email: String) async throws {
        let page = checkoutURL.split(separator: "?", maxSplits: 1)[0]
        let form = "email=" + (email.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? email)
        let response = try await postForm(String(page) + "/pay", form)
        #expect([200, 303].contains(response.status), "pay answered \(response.status): \(response.bodyString.prefix(300))")
    }

    /// The completion page of `checkoutID` as the provider's redirect opens
    /// it, polled (as its own refresh would) until it shows the redemption
    /// link; the link's href.
    func completionLink(_ checkoutID: String, timeout: Duration = .seconds(90)) async throws -> String {
        try await stack.eventually(timeout: timeout, "the completion page of \(checkoutID) shows a redemption link") { () -> String? in
            let response = try await stack.request(.get, stack.gateway + "/checkout/complete?checkout_id=\(checkoutID)", headers: forwarded)
            #expect(response.status == 200, "the completion page answered \(response.status): \(response.bodyString.prefix(300))")
            return Self.redeemLink(in: response.bodyString)
        }
    }

    /// The href of `#redeem-link` in a page, if it shows one.
    static func redeemLink(in page: String) -> String? {
        guard let anchor = page.range(of: #"id="redeem-link""#) else { return nil }
        let rest = page[anchor.upperBound...]
        guard let start = rest.range(of: #"href=""#), let end = rest[start.upperBound...].firstIndex(of: "\"") else { return nil }
        return String(rest[start.upperBound..<end])
    }

    /// `POST /api/redeem` `{"token": link}` as the user of `token`.
    func redeem(_ link: String, as token: String) async throws -> (status: Int, body: [String: Any]) {
        let response = try await redeemResponse(link, as: token)
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        return (response.status, object ?? ["raw": response.bodyString])
    }

    /// ``redeem(_:as:)``'s whole response (its headers too).
    func redeemResponse(_ link: String, as token: String) async throws -> HTTPClientResponse {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: ["token": link]), as: UTF8.self)
        return try await stack.request(.post, stack.gateway + "/api/redeem", token: token, json: json, headers: forwarded)
    }

    /// A token of the right shape (43 base64url characters) that no link has.
    static func madeUpToken() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        return String((0..<43).map { _ in alphabet.randomElement()! })
    }

    /// Buys a subscription (or a one-time product) of `provider` without an
    /// account and returns its completion page's link.
    func buyAnonymously(
        _ provider: String, email: String, prefill: Bool = true, ref: String? = nil, subscription: Bool = true
    ) async throws -> (checkoutID: String, link: String) {
        let checkout = try await checkout(provider, email: prefill ? email : nil, ref: ref, subscription: subscription)
        try await pay(checkout.url, email: email)
        return (checkout.checkoutID, try await completionLink(checkout.checkoutID))
    }

    /// A new signed-in app user (a dev token with a verified email by default).
    func user(email: String? = nil, emailVerified: Bool = true) async throws -> PurchaseFlow {
        let subject = "user-\(UUID().uuidString.prefix(8).lowercased())"
        let email = email ?? "\(subject)@example.com"
        return PurchaseFlow(
            stack: stack, provider: "", subject: subject, email: email,
            token: try await stack.token(subject: subject, email: email, emailVerified: emailVerified))
    }

    /// Waits until `user`'s entitlements list an active one; their identifiers.
    func active(_ user: PurchaseFlow, _ what: String) async throws -> [String] {
        try await stack.eventually(timeout: .seconds(60), what) { () -> [String]? in
            let active = try await user.activeEntitlements()
            return active.isEmpty ? nil : active
        }
    }

    /// A reader of the stack's `storefront.purchase-events.v1` (the outgoing
    /// `purchase.redemption_issued` events), from its start.
    func purchaseEvents() throws -> TopicReader {
        try TopicReader(
            topics: ["storefront.purchase-events.v1"], clientID: "web-first-tests",
            brokers: stack.settings["KAFKA_BROKERS"].map { $0.split(separator: ",").map(String.init) })
    }

    /// The seller's backend, as the webhook-sender sees it: an endpoint
    /// (``WebhookEndpointStub``, which checks every signature) registered with
    /// the operator CLI for `purchase.redemption_issued` only, and a reader of
    /// the topic the events come from; both gone when `body` returns or throws.
    func withOutgoing(_ body: (TopicReader, WebhookEndpointStub) async throws -> Void) async throws {
        let secret = try StandardWebhookSignature.generateSecret()
        let stub = try WebhookEndpointStub.start(secret: secret)
        let storefront = try stack.binary("storefront")
        let environment = ["DATABASE_URL": stack.databaseURL, "LOG_LEVEL": "error"]
        let output = stack.state + "/endpoint-\(UUID().uuidString.prefix(6))"
        let input = stack.state + "/endpoint-secret-\(UUID().uuidString.prefix(6))"
        try Data((secret + "\n").utf8).write(to: URL(fileURLWithPath: input))
        try await ScriptRunner.run(
            storefront, ["endpoints", "add", "--url", stub.url, "--types", "purchase.redemption_issued", "--secret-stdin", "--allow-private"],
            environment: environment, outputFile: output, inputFile: input)
        // "added <id> <url>"
        let added = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").first { $0.hasPrefix("added ") }
        let endpoint = String(try #require(added?.split(separator: " ").dropFirst().first, "the CLI named the endpoint"))
        let reader = try purchaseEvents()
        var failure: (any Error)?
        do { try await body(reader, stub) } catch { failure = error }
        await reader.close()
        await stub.stop()
        try? await ScriptRunner.run(storefront, ["endpoints", "remove", endpoint], environment: environment, outputFile: output)
        if let failure { throw failure }
    }

    /// Waits until the endpoint has accepted the events `ids` (their `webhook-id`), each
    /// checked against its signature; their bodies, one per id, in `ids`' order.
    func delivered(_ stub: WebhookEndpointStub, _ ids: [String]) async throws -> [[String: Any]] {
        let requests = try await stack.eventually(timeout: .seconds(60), "the endpoint received \(ids)") { () -> [WebhookEndpointStub.Received]? in
            let got = stub.received.filter { ids.contains($0.webhookID) }
            return Set(got.map(\.webhookID)) == Set(ids) ? got : nil
        }
        #expect(requests.count == ids.count && stub.attempts(for: Set(ids)) == ids.count, "once per link: \(requests.map(\.webhookID))")
        #expect(stub.rejected == 0, "every request was signed with the endpoint's secret")
        return try ids.map { id in
            let request = try #require(requests.first { $0.webhookID == id })
            return try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        }
    }

    /// Waits until `reader` has read at least `count` events about the purchase `key`
    /// (`<provider>:<type>:<id>`); every event about it read by then.
    func events(_ reader: TopicReader, about key: String, count: Int) async throws -> [[String: Any]] {
        try await stack.eventually(timeout: .seconds(30), "\(count) purchase event(s) about \(key)") { () -> [[String: Any]]? in
            let found = reader.jsonRecords.filter { $0.key == key }.map(\.value)
            return found.count >= count ? found : nil
        }
    }

    static func email(_ name: String) -> String { "\(name)-\(UUID().uuidString.prefix(8).lowercased())@example.com" }
}

/// The stacks of these suites: the web-first settings `scripts/stack.sh`
/// gives the checkout (CHECKOUT_ANONYMOUS=on, a sample APPLE_APP_IDS), and
/// 127.0.0.1 trusted as the proxy in front of the gateway (see ``WebFirstBuyer``).
enum WebFirstStack {
    static let settings = ["GATEWAY_TRUSTED_PROXIES": "127.0.0.1/32"]
    static let appleAppID = "ABCDE12345.com.example.storefront"
}

@Suite(.serialized, .liveStack(WebFirstStack.settings)) struct WebFirstEndToEndTests {
    var stack: LiveStack { get throws { try LiveStack.required() } }

    /// Issue 33's walk: the paywall in a browser, the hosted checkout, the
    /// completion page's link, then the app redeems it for its user; another
    /// user cannot take it, and a made-up link finds nothing.
    @Test(.timeLimit(.minutes(5))) func aBuyerOnThePaywallPaysAndTheAppRedeemsTheLink() async throws {
        let stack = try self.stack
        let buyer = WebFirstBuyer(stack: stack, address: "198.51.100.11")
        let email = WebFirstBuyer.email("paywall")
        try await buyer.withOutgoing { reader, endpoint in
            try await buysOnThePaywallAndRedeems(buyer, email: email, reader: reader, endpoint: endpoint)
        }
    }

    func buysOnThePaywallAndRedeems(_ buyer: WebFirstBuyer, email: String, reader: TopicReader, endpoint: WebhookEndpointStub) async throws {
        let stack = buyer.stack

        let browser = try await Browser.start()
        let href: String
        let landed: String
        do {
            try await browser.open(stack.gateway + "/paywall?ref=e2e-campaign")
            #expect(try await browser.title == "Choose your plan")
            #expect(try await browser.attribute("value", of: try await browser.element("form input[name=ref]")) == "e2e-campaign")
            // A Lemon Squeezy plan's button (Paystack's form asks for the email first: the other test).
            try await browser.click(
                try await browser.element(#"form:has(input[name=variantId][value^="ls_"]) button.buy[aria-label^="Subscribe to"]"#))
            _ = try await browser.waitForURL { $0.hasPrefix(stack.sandbox) }
            #expect(try await browser.title.hasPrefix("Checkout"), "the hosted checkout page opened")
            try await browser.type(email, into: try await browser.element("input[name=email]"))
            try await browser.click(try await browser.element("button[type=submit]"))
            landed = try await browser.waitForURL(timeout: .seconds(30)) { $0.hasPrefix(stack.gateway + "/checkout/complete") }
            #expect(landed.contains("checkout_id="), "the provider's redirect names the checkout: \(landed)")
            // The page refreshes itself until the purchase is projected, then shows the link.
            let link = try await browser.element("#redeem-link", timeout: .seconds(120))
            href = try #require(try await browser.attribute("href", of: link))
            #expect(try await browser.text(link) == "Open in the app")
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
        #expect(href.hasPrefix(stack.gateway + "/redeem/"), "PUBLIC_URL/redeem/<token>: \(href)")

        // The campaign tag reached the checkout record.
        let checkoutID = try #require(URLComponents(string: landed)?.queryItems?.first { $0.name == "checkout_id" }?.value)
        let ref = try await stack.withDatabase { pool in
            try await pool.query("SELECT ref FROM checkouts WHERE checkout_id = \(checkoutID)").first?.decode(String?.self)
        }
        #expect(ref == "e2e-campaign")

        // The link opened where the app is not installed: a page, and the link still unused.
        let landing = try await stack.request(.get, href)
        #expect(landing.status == 200 && landing.bodyString.contains("apps.apple.com"), "\(landing.status): \(landing.bodyString.prefix(300))")

        let a = try await buyer.user()
        let b = try await buyer.user()
        let redeemed = try await buyer.redeem(href, as: a.token)
        #expect(redeemed.status == 200 && redeemed.body["outcome"] as? String == "redeemed", "\(redeemed)")
        let purchase = try #require(redeemed.body["purchase"] as? [String: Any], "\(redeemed)")
        #expect(purchase["type"] as? String == "subscription" && purchase["id"] is String && purchase["provider"] is String)
        let active = try await buyer.active(a, "A's entitlement active after redeeming")
        #expect(active.count == 1, "\(active)")

        let stolen = try await buyer.redeem(href, as: b.token)
        #expect(stolen.status == 409, "\(stolen)")
        #expect(stolen.body["outcome"] as? String == "belongs_to_another_user" && stolen.body["code"] as? String == "belongs_to_another_user")
        #expect(stolen.body["purchase"] == nil, "a refusal names no purchase")
        #expect(try await b.activeEntitlements().isEmpty, "B gained nothing")

        let again = try await buyer.redeem(href, as: a.token)
        #expect(again.status == 200 && again.body["outcome"] as? String == "already_yours", "\(again)")
        // The bare token works as the whole link does.
        let bare = String(href.split(separator: "/").last ?? "")
        let againBare = try await buyer.redeem(bare, as: a.token)
        #expect(againBare.status == 200 && againBare.body["outcome"] as? String == "already_yours", "\(againBare)")

        let madeUp = try await buyer.redeem(stack.gateway + "/redeem/" + String(repeating: "A", count: 43), as: a.token)
        #expect(madeUp.status == 404 && madeUp.body["outcome"] as? String == "unknown" && madeUp.body["code"] as? String == "unknown", "\(madeUp)")

        // The completion page, reloaded after the redemption, offers no second link.
        let reloaded = try await stack.request(.get, stack.gateway + "/checkout/complete?checkout_id=\(checkoutID)")
        #expect(reloaded.status == 200 && WebFirstBuyer.redeemLink(in: reloaded.bodyString) == nil, "\(reloaded.bodyString.prefix(500))")
        #expect(try await a.activeEntitlements() == active, "A keeps the purchase")

        // The outgoing event for the seller's backend to email: one per link, however often the page reloaded.
        let key = "\(purchase["provider"] as? String ?? ""):subscription:\(purchase["id"] as? String ?? "")"
        let events = try await buyer.events(reader, about: key, count: 1)
        #expect(events.count == 1, "one link, one event: \(events)")
        let event = try #require(events.first)
        #expect(event["type"] as? String == "purchase.redemption_issued" && event["redemption_url"] as? String == href, "\(event)")
        #expect(event["email"] as? String == email && event["ref"] as? String == "e2e-campaign", "\(event)")
        #expect(event["id"] is String && event["occurred_at"] is String && event["expires_at"] is String, "\(event)")
        #expect((event["purchase"] as? [String: Any])?["id"] as? String == purchase["id"] as? String, "\(event)")
        // The webhook-sender delivers it, signed, once, as the topic has it (the webhook id is the event's id).
        let eventID = try #require(event["id"] as? String)
        let delivered = try await buyer.delivered(endpoint, [eventID])
        #expect(delivered.first?["id"] as? String == eventID && delivered.first?["type"] as? String == "purchase.redemption_issued")
        #expect(delivered.first?["redemption_url"] as? String == href && delivered.first?["email"] as? String == email, "\(delivered)")
        #expect(delivered.first?["ref"] as? String == "e2e-campaign" && delivered.first?["expires_at"] as? String == event["expires_at"] as? String)
    }

    /// Every provider: a checkout without a token, paid on the hosted page,
    /// is redeemable from its completion page by whoever holds the link.
    @Test(.timeLimit(.minutes(4)), arguments: ["lemonsqueezy", "paystack", "stripe"])
    func anAnonymousPurchaseIsRedeemable(provider: String) async throws {
        let stack = try self.stack
        let address = ["lemonsqueezy": "198.51.100.21", "paystack": "198.51.100.22", "stripe": "198.51.100.23"][provider]!
        let buyer = WebFirstBuyer(stack: stack, address: address)
        let reader = try buyer.purchaseEvents()
        do {
            try await buysAnonymouslyAndRedeems(buyer, provider: provider, reader: reader)
        } catch {
            await reader.close()
            throw error
        }
        await reader.close()
    }

    func buysAnonymouslyAndRedeems(_ buyer: WebFirstBuyer, provider: String, reader: TopicReader) async throws {
        let stack = buyer.stack
        let email = WebFirstBuyer.email("anon-\(provider)")
        let (checkoutID, link) = try await buyer.buyAnonymously(provider, email: email, ref: "e2e-\(provider)")
        #expect(link.hasPrefix(stack.gateway + "/redeem/"), "\(link)")
        // Reloading the page shows the same link (it is derived, not issued again).
        #expect(try await buyer.completionLink(checkoutID) == link)

        let redeemer = try await buyer.user()
        #expect(try await redeemer.activeEntitlements().isEmpty)
        let redeemed = try await buyer.redeem(link, as: redeemer.token)
        #expect(redeemed.status == 200 && redeemed.body["outcome"] as? String == "redeemed", "\(redeemed)")
        #expect((redeemed.body["purchase"] as? [String: Any])?["provider"] as? String == provider, "\(redeemed)")
        let entitlements = try await stack.eventually(timeout: .seconds(60), "the \(provider) entitlement active") { () -> [[String: Any]]? in
            let listed = try await redeemer.entitlements()
            return listed.contains { $0["is_active"] as? Bool == true } ? listed : nil
        }
        #expect(entitlements.allSatisfy { $0["provider"] as? String == provider }, "\(entitlements)")

        // The link's event names the buyer's email (whichever of the provider's events brought it).
        let id = try #require((redeemed.body["purchase"] as? [String: Any])?["id"] as? String, "\(redeemed)")
        let events = try await buyer.events(reader, about: "\(provider):subscription:\(id)", count: 1)
        #expect(events.count == 1, "\(events)")
        #expect(events.first?["email"] as? String == email && events.first?["redemption_url"] as? String == link, "\(events)")
        #expect(events.first?["ref"] as? String == "e2e-\(provider)", "\(events)")
    }

    /// A one-time product bought without an account: its order is redeemable
    /// and grants a purchase (Paystack sells plans only).
    @Test(.timeLimit(.minutes(3)), arguments: ["lemonsqueezy", "stripe"])
    func anAnonymousOneTimePurchaseIsRedeemable(provider: String) async throws {
        let stack = try self.stack
        let buyer = WebFirstBuyer(stack: stack, address: ["lemonsqueezy": "198.51.100.24", "stripe": "198.51.100.25"][provider]!)
        let (_, link) = try await buyer.buyAnonymously(provider, email: WebFirstBuyer.email("once-\(provider)"), subscription: false)
        let redeemer = try await buyer.user()
        let redeemed = try await buyer.redeem(link, as: redeemer.token)
        #expect(redeemed.status == 200 && redeemed.body["outcome"] as? String == "redeemed", "\(redeemed)")
        let purchase = redeemed.body["purchase"] as? [String: Any]
        #expect(purchase?["type"] as? String == "order" && purchase?["provider"] as? String == provider, "\(redeemed)")
        let granted = try await stack.eventually(timeout: .seconds(60), "the \(provider) purchase granted") { () -> [String: Any]? in
            try await redeemer.entitlements().first { $0["is_active"] as? Bool == true }
        }
        #expect(granted["source"] as? String == "purchase" && granted["provider"] as? String == provider, "\(granted)")
    }

    /// Guessing links costs the guesser: ten attempts a minute per user, then
    /// 429 `rate_limited` with `Retry-After`; another user elsewhere is not held up.
    @Test func guessingRedemptionLinksIsRateLimited() async throws {
        let stack = try self.stack
        let buyer = WebFirstBuyer(stack: stack, address: "198.51.100.71")
        let guesser = try await buyer.user()
        var answers: [Int] = []
        var limited: HTTPClientResponse?
        // Fixed one-minute windows: 21 attempts pass at most 20 even across a window's end.
        for _ in 0..<21 where limited == nil {
            let response = try await buyer.redeemResponse(WebFirstBuyer.madeUpToken(), as: guesser.token)
            answers.append(response.status)
            if response.status == 429 { limited = response }
        }
        let refused = try #require(limited, "no 429 in \(answers)")
        #expect(answers.dropLast().allSatisfy { $0 == 404 } && answers.count >= 11, "\(answers)")
        let seconds = Int(refused.headers["Retry-After"] ?? "")
        #expect(seconds.map { (1...3600).contains($0) } == true, "Retry-After: \(refused.headers["Retry-After"] ?? "none")")
        let body = try JSONSerialization.jsonObject(with: Data(refused.body)) as? [String: Any]
        #expect(body?["code"] as? String == "rate_limited" && body?["success"] as? Bool == false, "\(refused.bodyString)")

        let bystander = WebFirstBuyer(stack: stack, address: "198.51.100.72")
        let other = try await bystander.redeem(WebFirstBuyer.madeUpToken(), as: try await bystander.user().token)
        #expect(other.status == 404 && other.body["outcome"] as? String == "unknown", "\(other)")
    }

    /// The paywall's buy buttons open a checkout of each provider (a 303 to
    /// its hosted page); Paystack's form asks for the email its checkout needs.
    @Test func thePaywallOpensACheckoutOfEveryProvider() async throws {
        let stack = try self.stack
        let buyer = WebFirstBuyer(stack: stack, address: "198.51.100.31")
        let page = try await stack.request(.get, stack.gateway + "/paywall?ref=e2e-campaign", headers: buyer.forwarded)
        #expect(page.status == 200 && page.headers["Content-Type"]?.hasPrefix("text/html") == true)
        for provider in ["lemonsqueezy", "paystack", "stripe"] {
            let variant = try await buyer.product(provider).variantID
            let listed = try #require(page.bodyString.range(of: #"name="variantId" value="\#(variant)""#), "the paywall lists \(variant)")
            let form = page.bodyString[listed.upperBound...].prefix { $0 != "/" } // up to the form's </button>
            #expect(form.contains(#"name="ref" value="e2e-campaign""#))
            var fields = "variantId=\(variant)&ref=e2e-campaign"
            if provider == "paystack" {
                #expect(form.contains(#"name="customerEmail" required"#), "Paystack's form asks for the email: \(form)")
                let refused = try await buyer.postForm(stack.gateway + "/paywall/checkout", fields)
                #expect(refused.status == 400 && refused.bodyString.contains("email"), "\(refused.status) \(refused.bodyString.prefix(400))")
                fields += "&customerEmail=" + WebFirstBuyer.email("paywall-paystack").replacingOccurrences(of: "@", with: "%40")
            }
            let response = try await buyer.postForm(stack.gateway + "/paywall/checkout", fields)
            #expect(response.status == 303, "\(provider): \(response.status) \(response.bodyString.prefix(400))")
            #expect(response.headers["Location"]?.hasPrefix(stack.sandbox) == true, "\(provider): \(response.headers["Location"] ?? "no Location")")
        }
    }

    /// An anonymous user buys and redeems, then signs in: alias moves the
    /// purchases to the signed-in user once; a second user aliasing the same
    /// anonymous token is refused and gains nothing.
    @Test(.timeLimit(.minutes(4))) func anAnonymousUsersPurchasesMoveToTheFirstUserThatAliasesIt() async throws {
        let stack = try self.stack
        let buyer = WebFirstBuyer(stack: stack, address: "198.51.100.41")
        let minted = try await buyer.post("/api/anonymous")
        #expect(minted.status == 200 && minted.body["success"] as? Bool == true, "\(minted)")
        let anonymousID = try #require(minted.body["appUserId"] as? String)
        let anonymousToken = try #require(minted.body["token"] as? String)
        #expect(anonymousID.hasPrefix("anon_") && anonymousID.count == 37 && minted.body["expiresAt"] is String, "\(minted.body)")
        let anonymous = PurchaseFlow(stack: stack, provider: "", subject: anonymousID, email: "", token: anonymousToken)

        // Bought without a token, redeemed by the anonymous user.
        let (_, link) = try await buyer.buyAnonymously("lemonsqueezy", email: WebFirstBuyer.email("alias"))
        let redeemed = try await buyer.redeem(link, as: anonymousToken)
        #expect(redeemed.status == 200 && redeemed.body["outcome"] as? String == "redeemed", "\(redeemed)")
        // Bought with the anonymous user's token: the purchase is the anonymous user's at once.
        let owned = try await buyer.checkout("stripe", email: nil, token: anonymousToken)
        try await buyer.pay(owned.url, email: WebFirstBuyer.email("alias-owned"))
        let anonymousActive = try await stack.eventually(timeout: .seconds(60), "both of the anonymous user's purchases active") {
            () -> [String]? in
            let active = try await anonymous.activeEntitlements()
            return active.count >= 2 ? active : nil
        }

        let a = try await buyer.user()
        let b = try await buyer.user()
        // An anonymous token is no sign-in.
        let notSignedIn = try await buyer.post("/api/users/alias", token: anonymousToken, json: #"{"anonymousToken":"\#(anonymousToken)"}"#)
        #expect(notSignedIn.status == 400 && notSignedIn.body["code"] as? String == "not_signed_in", "\(notSignedIn)")
        let forged = try await buyer.post("/api/users/alias", token: b.token, json: #"{"anonymousToken":"\#(b.token)"}"#)
        #expect(forged.status == 400, "an identity provider's token is no anonymous token: \(forged)")

        let merged = try await buyer.post("/api/users/alias", token: a.token, json: #"{"anonymousToken":"\#(anonymousToken)"}"#)
        #expect(
            merged.status == 200 && merged.body["outcome"] as? String == "merged" && merged.body["appUserId"] as? String == a.subject, "\(merged)")
        let moved = try await stack.eventually(timeout: .seconds(60), "A has the anonymous user's entitlements") { () -> [String]? in
            let active = try await a.activeEntitlements()
            return Set(anonymousActive).isSubset(of: active) ? active : nil
        }
        #expect(Set(moved) == Set(anonymousActive), "\(moved) vs \(anonymousActive)")

        let again = try await buyer.post("/api/users/alias", token: a.token, json: #"{"anonymousToken":"\#(anonymousToken)"}"#)
        #expect(again.status == 200 && again.body["outcome"] as? String == "already_merged", "\(again)")
        let hostile = try await buyer.post("/api/users/alias", token: b.token, json: #"{"anonymousToken":"\#(anonymousToken)"}"#)
        #expect(hostile.status == 409 && hostile.body["code"] as? String == "already_merged_elsewhere", "\(hostile)")
        // B's view after A's merge was projected: nothing.
        #expect(try await b.entitlements().isEmpty, "B gained nothing")
        #expect(Set(try await a.activeEntitlements()) == Set(anonymousActive), "A keeps them")
        // The link the anonymous user redeemed is A's now, not B's.
        let stolen = try await buyer.redeem(link, as: b.token)
        #expect(stolen.status == 409 && stolen.body["outcome"] as? String == "belongs_to_another_user", "\(stolen)")

        // A purchase the anonymous token makes after the merge is A's too.
        let later = try await buyer.checkout("lemonsqueezy", email: nil, token: anonymousToken, subscription: false)
        try await buyer.pay(later.url, email: WebFirstBuyer.email("alias-later"))
        let grown = try await stack.eventually(timeout: .seconds(60), "A has the purchase made after the merge") { () -> [String]? in
            let active = try await a.activeEntitlements()
            return active.count > anonymousActive.count ? active : nil
        }
        #expect(Set(anonymousActive).isSubset(of: grown), "\(grown)")
        #expect(try await b.entitlements().isEmpty, "B still has nothing")
    }

    /// A purchase made without an account is restored by the signed-in user
    /// whose verified email paid for it, and by nobody else.
    @Test(.timeLimit(.minutes(6))) func restoreClaimsOnlyThePurchasesOfTheVerifiedEmail() async throws {
        let stack = try self.stack
        let buyer = WebFirstBuyer(stack: stack, address: "198.51.100.51")
        let c = try await buyer.user()
        let d = try await buyer.user()
        // Same email as C, not verified: an unverified claim restores nothing.
        let e = try await buyer.user(email: c.email, emailVerified: false)

        let checkout = try await buyer.checkout("lemonsqueezy", email: c.email)
        try await buyer.pay(checkout.url, email: c.email)
        // Projected once its completion page shows a link.
        let link = try await buyer.completionLink(checkout.checkoutID)

        // An email claims only a purchase first seen `SubscriptionStatusReader.claimDelay` (120 s) ago
        // (an owner may still be on its way): wait until then, so every restore below could claim it.
        let firstSeen = try await stack.withDatabase { pool in
            try await pool.query(
                "SELECT first_seen_at FROM subscriptions WHERE provider = 'lemonsqueezy' AND lower(customer_email) = lower(\(c.email))"
            ).first?.decode(Date.self)
        }
        let claimable = try #require(firstSeen, "the purchase is projected").addingTimeInterval(120 + 1)
        try await Task.sleep(for: .seconds(max(0, claimable.timeIntervalSinceNow)))

        for stranger in [d, e] {
            let restored = try await buyer.post("/api/restore", token: stranger.token)
            #expect(restored.status == 200, "\(restored)")
            #expect((restored.body["claimed"] as? [Any])?.isEmpty == true, "\(stranger.subject) <\(stranger.email)>: \(restored.body)")
            #expect((restored.body["entitlements"] as? [Any])?.isEmpty == true, "\(restored.body)")
            #expect(try await stranger.activeEntitlements().isEmpty)
        }

        let restored = try await buyer.post("/api/restore", token: c.token)
        #expect(restored.status == 200, "\(restored)")
        let claimed = try #require(restored.body["claimed"] as? [[String: Any]], "\(restored.body)")
        #expect(
            claimed.count == 1 && claimed.first?["provider"] as? String == "lemonsqueezy" && claimed.first?["type"] as? String == "subscription",
            "one purchase, the subscription (its first order is part of it): \(claimed)")
        #expect((restored.body["entitlements"] as? [[String: Any]])?.contains { $0["is_active"] as? Bool == true } == true, "\(restored.body)")
        _ = try await buyer.active(c, "C's restored entitlement active")
        // The claim is a command the projector applies; once it has, the purchase is C's.
        let subscriptionID = try #require(claimed.first?["id"] as? String)
        _ = try await stack.eventually(timeout: .seconds(60), "the projection names C as the owner") { () -> Bool? in
            let owner = try await stack.withDatabase { pool in
                try await pool.query(
                    "SELECT app_user_id FROM subscriptions WHERE provider = 'lemonsqueezy' AND subscription_id = \(subscriptionID)"
                ).first?.decode(String?.self)
            }
            return owner == c.subject ? true : nil
        }
        // Once C owns it, the completion page's link is C's to redeem, nobody else's.
        let taken = try await buyer.redeem(link, as: d.token)
        #expect(taken.status == 409 && taken.body["outcome"] as? String == "belongs_to_another_user", "\(taken)")
        let mine = try await buyer.redeem(link, as: c.token)
        #expect(mine.status == 200 && mine.body["outcome"] as? String == "already_yours", "\(mine)")
        for stranger in [d, e] {
            #expect(try await stranger.activeEntitlements().isEmpty, "\(stranger.email) restored nothing")
        }
    }

    /// The file iOS fetches for `applinks:<host>`: JSON, served directly (no redirect).
    @Test func theAppleAssociationFileListsTheAppAndItsPaths() async throws {
        let stack = try self.stack
        let response = try await stack.request(.get, stack.gateway + "/.well-known/apple-app-site-association")
        #expect(response.status == 200, "\(response.status): \(response.bodyString.prefix(300))")
        #expect(response.headers["Content-Type"]?.hasPrefix("application/json") == true, "\(response.headers["Content-Type"] ?? "none")")
        #expect(response.headers["Location"] == nil)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let details = try #require((object["applinks"] as? [String: Any])?["details"] as? [[String: Any]], "\(object)")
        #expect(details.count == 1)
        #expect(details.first?["appIDs"] as? [String] == [WebFirstStack.appleAppID])
        let paths = (details.first?["components"] as? [[String: Any]])?.compactMap { $0["/"] as? String }
        #expect(paths == ["/redeem/*", "/checkout/complete*"], "\(object)")
        // Android's file is not configured in the test stack.
        let android = try await stack.request(.get, stack.gateway + "/.well-known/assetlinks.json")
        #expect(android.status == 404)
    }
}

/// A link expires after `REDEMPTION_TTL` (1 minute here, the shortest
/// allowed): then 410 `expired`, and the completion page offers a fresh one.
/// Its own stack, so no other test's link is that short-lived.
@Suite(.serialized, .liveStack(WebFirstStack.settings.merging(["REDEMPTION_TTL": "1m"]) { $1 }))
struct WebFirstExpiryEndToEndTests {
    @Test(.timeLimit(.minutes(5))) func anExpiredLinkIsRefusedAndTheCompletionPageOffersAFreshOne() async throws {
        let stack = try LiveStack.required()
        let buyer = WebFirstBuyer(stack: stack, address: "198.51.100.61")
        let email = WebFirstBuyer.email("expiry")
        try await buyer.withOutgoing { reader, endpoint in
            try await expires(buyer, email: email, reader: reader, endpoint: endpoint)
        }
    }

    func expires(_ buyer: WebFirstBuyer, email: String, reader: TopicReader, endpoint: WebhookEndpointStub) async throws {
        let stack = buyer.stack
        let (checkoutID, link) = try await buyer.buyAnonymously("stripe", email: email)
        let page = try await stack.request(.get, stack.gateway + "/checkout/complete?checkout_id=\(checkoutID)")
        // "The link works once and until <ISO 8601>."
        let until = try #require(page.bodyString.range(of: "until ").map { page.bodyString[$0.upperBound...].prefix { $0 != "." && $0 != " " } })
        let expiresAt = try #require(ISO8601DateFormatter().date(from: String(until)), "\(until)")
        #expect(expiresAt.timeIntervalSinceNow <= 61, "REDEMPTION_TTL=1m: the link expires within a minute, at \(expiresAt)")

        // Wait out the link's life (bounded by the TTL just checked), then redeem.
        let wait = max(0, expiresAt.timeIntervalSinceNow) + 1
        try await Task.sleep(for: .seconds(wait))
        let a = try await buyer.user()
        let expired = try await buyer.redeem(link, as: a.token)
        #expect(expired.status == 410, "\(expired)")
        #expect(expired.body["outcome"] as? String == "expired" && expired.body["code"] as? String == "expired", "\(expired)")
        #expect((expired.body["error"] as? String)?.contains("/api/redeem/resend") == true)
        #expect(try await a.activeEntitlements().isEmpty, "an expired link grants nothing")

        // Asking for a new link answers the same whoever asks.
        for address in [email, WebFirstBuyer.email("nobody")] {
            let resent = try await buyer.post("/api/redeem/resend", json: #"{"email":"\#(address)"}"#)
            #expect(resent.status == 202 && resent.body["success"] as? Bool == true, "\(resent)")
        }
        // The completion page, reloaded, shows a fresh link that works.
        let fresh = try await buyer.completionLink(checkoutID)
        #expect(fresh != link)
        let redeemed = try await buyer.redeem(fresh, as: a.token)
        #expect(redeemed.status == 200 && redeemed.body["outcome"] as? String == "redeemed", "\(redeemed)")
        _ = try await buyer.active(a, "A's entitlement active after redeeming the fresh link")
        // The expired one stays expired.
        let stale = try await buyer.redeem(link, as: a.token)
        #expect(stale.status == 410 && stale.body["outcome"] as? String == "expired", "\(stale)")

        // One outgoing event per link: the first, the one resent to the buyer's email, the page's fresh one.
        let purchaseID = try #require((redeemed.body["purchase"] as? [String: Any])?["id"] as? String, "\(redeemed)")
        let issued = try await stack.withDatabase { pool in
            try await pool.query(
                "SELECT redemption_id::text, via FROM checkout_redemptions WHERE provider = 'stripe' AND purchase_id = \(purchaseID)"
            ).map { try $0.decode((String, String).self) }
        }
        #expect(issued.map(\.1).sorted() == ["completion_page", "completion_page", "resend"], "\(issued)")
        let events = try await buyer.events(reader, about: "stripe:subscription:\(purchaseID)", count: issued.count)
        #expect(events.count == issued.count, "\(events)")
        #expect(Set(events.compactMap { $0["id"] as? String }) == Set(issued.map(\.0)), "each link's id is its event's id")
        let urls = events.compactMap { $0["redemption_url"] as? String }
        #expect(urls.contains(link) && urls.contains(fresh) && Set(urls).count == events.count, "\(urls)")
        #expect(events.allSatisfy { $0["email"] as? String == email && $0["type"] as? String == "purchase.redemption_issued" }, "\(events)")

        // The link resent by email names the same purchase: already A's, nobody else's.
        let resendID = try #require(issued.first { $0.1 == "resend" }?.0)
        let resent = try #require(events.first { $0["id"] as? String == resendID }?["redemption_url"] as? String)
        // Each link reached the seller's endpoint once, signed, with its own URL: the resent one is what the buyer is emailed.
        let delivered = try await buyer.delivered(endpoint, issued.map(\.0))
        #expect(Set(delivered.compactMap { $0["redemption_url"] as? String }) == Set(urls), "\(delivered)")
        #expect(delivered.allSatisfy { $0["email"] as? String == email }, "\(delivered)")
        let b = try await buyer.user()
        let taken = try await buyer.redeem(resent, as: b.token)
        #expect(taken.status == 409 && taken.body["outcome"] as? String == "belongs_to_another_user", "\(taken)")
        let mine = try await buyer.redeem(resent, as: a.token)
        #expect(mine.status == 200 && mine.body["outcome"] as? String == "already_yours", "\(mine)")
        #expect(try await b.activeEntitlements().isEmpty)
    }
}
