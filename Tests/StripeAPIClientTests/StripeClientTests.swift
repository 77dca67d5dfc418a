import BillingModel
import Foundation
import HTTPClient
import JSONCodec
import Providers
import ServiceSettings
import Providers
import ProviderConfiguration
import Webhooks
import Testing

/// ``StripeClient`` over a fake transport: what it asks Stripe for, and how it
/// reads the answers. No server.
@Suite("Stripe client")
struct StripeClientTests {
    static let provider = Provider.stripe
    static let now = Date(timeIntervalSince1970: 1_750_000_000)
    static let configuration = StripeConfiguration(
        secretKey: Secret("sk_test_unit"), apiBaseURL: "https://stripe.test/", successURL: "https://app.example/done",
        cancelURL: "https://app.example/back", portalReturnURL: "https://app.example/account")

    func client(pageSize: Int = 100, maximumPages: Int = 200, _ answer: @escaping FakeStripeTransport.Answer) -> (StripeClient, FakeStripeTransport) {
        let transport = FakeStripeTransport(answer)
        let client = StripeClient(
            provider: Self.provider, configuration: Self.configuration, transport: transport, pageSize: pageSize, maximumPages: maximumPages,
            now: { Self.now })
        return (client, transport)
    }

    static func product(_ id: String, _ name: String, active: Bool = true) -> String {
        #"{"id":"\#(id)","object":"product","active":\#(active),"name":"\#(name)","description":"About \#(name)","livemode":false}"#
    }

    static func price(
        _ id: String, product: String, amount: Int? = 500, interval: String? = nil, count: Int = 1, active: Bool = true, usage: String = "licensed",
        nickname: String? = nil
    ) -> String {
        let recurring = interval.map { #"{"interval":"\#($0)","interval_count":\#(count),"usage_type":"\#(usage)"}"# } ?? "null"
        return #"""
            {"id":"\#(id)","object":"price","active":\#(active),"currency":"usd","livemode":false,"product":"\#(product)",\#
            "nickname":\#(nickname.map { "\"\($0)\"" } ?? "null"),"recurring":\#(recurring),\#
            "type":"\#(interval == nil ? "one_time" : "recurring")","unit_amount":\#(amount.map(String.init) ?? "null")}
            """#
    }

    static func subscription(_ id: String, status: String = "active", cancelAtPeriodEnd: Bool = false, customer: String = "cus_1") -> String {
        #"""
        {"id":"\#(id)","object":"subscription","status":"\#(status)","cancel_at_period_end":\#(cancelAtPeriodEnd),\#
        "cancel_at":\#(cancelAtPeriodEnd ? "1752592000" : "null"),"canceled_at":null,"ended_at":null,"created":1749000000,\#
        "customer":"\#(customer)","livemode":false,"metadata":{},"trial_start":null,"trial_end":null,"latest_invoice":null,\#
        "items":{"object":"list","has_more":false,"data":[{"id":"si_1","object":"subscription_item","current_period_start":1749913600,\#
        "current_period_end":1752592000,"price":{"id":"price_M","object":"price","product":"prod_P"}}]}}
        """#
    }

    // MARK: - Catalog

    @Test func theCatalogFollowsCursorsAndKeepsWhatCanBeSoldAtAPrice() async throws {
        let (client, transport) = client(pageSize: 2) { request throws(ProviderError) in
            let after = request.queryValue("starting_after")
            switch (request.path, after) {
            case ("/v1/products", nil):
                return FakeStripeTransport.list([Self.product("prod_P", "Premium"), Self.product("prod_I", "Icons")], hasMore: true)
            case ("/v1/products", "prod_I"?):
                return FakeStripeTransport.list([Self.product("prod_Old", "Old", active: false)])
            case ("/v1/prices", nil):
                return FakeStripeTransport.list(
                    [
                        Self.price("price_Y", product: "prod_P", amount: 4999, interval: "year"),
                        Self.price("price_M", product: "prod_P", amount: 499, interval: "month"),
                    ],
                    hasMore: true)
            case ("/v1/prices", "price_M"?):
                return FakeStripeTransport.list(
                    [
                        Self.price("price_I", product: "prod_I", amount: 999),
                        Self.price("price_Q", product: "prod_P", amount: 1299, interval: "month", count: 3),
                        Self.price("price_Meter", product: "prod_P", interval: "month", usage: "metered"),
                    ], hasMore: true)
            case ("/v1/prices", "price_Meter"?):
                return FakeStripeTransport.list([
                    Self.price("price_Free", product: "prod_P", amount: nil), Self.price("price_Gone", product: "prod_Old", amount: 100),
                ])
            default:
                throw FakeStripeTransport.missing(request)
            }
        }
        let items = try await client.catalog()
        #expect(items.map(\.variantID) == ["price_I", "price_M", "price_Q", "price_Y"])
        #expect(items.map(\.name) == ["Icons", "Premium – Monthly", "Premium – Every 3 months", "Premium – Yearly"])
        let yearly = try #require(items.last)
        #expect(yearly.provider == Self.provider && yearly.productID == "prod_P")
        #expect(yearly.price == 4999 && yearly.currency == "USD" && yearly.interval == BillingInterval(unit: .year))
        #expect(yearly.descriptionText == "About Premium" && yearly.testMode)
        #expect(items.first?.interval == nil)
        let requests = transport.requests
        #expect(requests.count == 5)
        #expect(requests.allSatisfy { $0.method == .get && $0.queryValue("active") == "true" && $0.queryValue("limit") == "2" })
        #expect(requests.allSatisfy { $0.idempotencyKey == nil && $0.operation == "catalog" })
    }

    @Test func aListThatSaysMoreWithoutANewCursorIsRefused() async {
        let (endless, _) = client { _ throws(ProviderError) in FakeStripeTransport.list([], hasMore: true) }
        await #expect(throws: ProviderError.self) { try await endless.catalog() }
        let (capped, transport) = client(maximumPages: 3) { request throws(ProviderError) in
            let next = (request.queryValue("starting_after").flatMap { Int($0.dropFirst("prod_".count)) } ?? 0) + 1
            return FakeStripeTransport.list([Self.product("prod_\(next)", "P\(next)")], hasMore: true)
        }
        do throws(ProviderError) {
            _ = try await capped.catalog()
            Issue.record("an endless list was followed")
        } catch {
            #expect(error.kind == .decoding && error.operation == "catalog")
        }
        #expect(transport.requests.count == 3)
    }

    // MARK: - Checkout

    func checkoutRequest(
        _ price: String, checkoutID: String = "2d9c6a40-5b1e-4f7a-9c3d-8e2f1a0b4c6d", expiresIn: TimeInterval? = 3600
    )
        -> CheckoutRequest
    {
        CheckoutRequest(
            variantID: price, email: EmailAddress("ada@example.com"), appUserID: "user-7f3a", checkoutID: checkoutID, ownershipProof: "proof-1",
            expiresAt: expiresIn.map { Self.now.addingTimeInterval($0) })
    }

    func sessionAnswer(_ request: StripeRequest) throws(ProviderError) -> String {
        switch request.path {
        case "/v1/prices/price_M": return Self.price("price_M", product: "prod_P", interval: "month")
        case "/v1/prices/price_I": return Self.price("price_I", product: "prod_I")
        case "/v1/prices/price_Old": return Self.price("price_Old", product: "prod_I", active: false)
        case "/v1/products/prod_P": return #"{"id":"prod_P","object":"product","name":"Pro Monthly","active":true}"#
        case "/v1/checkout/sessions":
            return
                #"{"id":"cs_test_1","object":"checkout.session","url":"https://checkout.stripe.test/c/cs_test_1","expires_at":1750003600,"livemode":false}"#
        default: throw FakeStripeTransport.missing(request)
        }
    }

    func form(_ request: StripeRequest) -> [String: String] {
        Dictionary(StripeFormEncoding.pairs(request.form).map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    @Test func aRecurringPriceOpensASubscriptionSessionCarryingTheClaimOnTheSubscription() async throws {
        let (client, transport) = client { request throws(ProviderError) in try sessionAnswer(request) }
        let checkout = try await client.createCheckout(checkoutRequest("price_M"))
        #expect(checkout.provider == Self.provider && checkout.providerCheckoutID == "cs_test_1")
        #expect(checkout.url == "https://checkout.stripe.test/c/cs_test_1")
        #expect(checkout.expiresAt == Date(timeIntervalSince1970: 1_750_003_600) && checkout.testMode == true)

        let requests = transport.requests
        #expect(requests.map(\.path) == ["/v1/prices/price_M", "/v1/products/prod_P", "/v1/checkout/sessions"])
        let post = try #require(requests.last)
        #expect(post.method == .post && post.idempotencyKey == "storefront-checkout-2d9c6a40-5b1e-4f7a-9c3d-8e2f1a0b4c6d")
        let fields = form(post)
        #expect(fields["mode"] == "subscription")
        #expect(fields["line_items[0][price]"] == "price_M" && fields["line_items[0][quantity]"] == "1")
        #expect(fields["success_url"] == "https://app.example/done" && fields["cancel_url"] == "https://app.example/back")
        #expect(fields["client_reference_id"] == "user-7f3a" && fields["customer_email"] == "ada@example.com")
        for prefix in ["metadata", "subscription_data[metadata]"] {
            #expect(fields["\(prefix)[storefront_user_id]"] == "user-7f3a")
            #expect(fields["\(prefix)[storefront_checkout_id]"] == "2d9c6a40-5b1e-4f7a-9c3d-8e2f1a0b4c6d")
            #expect(fields["\(prefix)[storefront_proof]"] == "proof-1")
            #expect(fields["\(prefix)[storefront_plan_name]"] == "Pro Monthly", "the subscription's events name only the price")
        }
        #expect(fields["metadata[storefront_price_id]"] == "price_M" && fields["metadata[storefront_product_id]"] == "prod_P")
        #expect(fields.keys.allSatisfy { !$0.hasPrefix("payment_intent_data") })
        #expect(fields["expires_at"] == "1750003600")
    }

    @Test func aOneTimePriceOpensAPaymentSessionCarryingTheClaimOnThePayment() async throws {
        let (client, transport) = client { request throws(ProviderError) in try sessionAnswer(request) }
        var request = checkoutRequest("price_I", expiresIn: 60)
        request.redirectURL = "https://app.example/thanks"
        _ = try await client.createCheckout(request)
        let fields = form(try #require(transport.requests.last))
        #expect(fields["mode"] == "payment")
        #expect(fields["success_url"] == "https://app.example/thanks")
        #expect(fields["payment_intent_data[metadata][storefront_user_id]"] == "user-7f3a")
        #expect(fields["payment_intent_data[metadata][storefront_proof]"] == "proof-1")
        #expect(fields.keys.allSatisfy { !$0.hasPrefix("subscription_data") })
        // A minute is less than Stripe allows: moved to 31 minutes ahead.
        #expect(fields["expires_at"] == String(Int(Self.now.timeIntervalSince1970) + 31 * 60))
    }

    @Test func theSameCheckoutSendsTheSameKeyAndAnotherCheckoutAnother() async throws {
        let (client, transport) = client { request throws(ProviderError) in try sessionAnswer(request) }
        _ = try await client.createCheckout(checkoutRequest("price_M"))
        _ = try await client.createCheckout(checkoutRequest("price_M"))
        _ = try await client.createCheckout(checkoutRequest("price_M", checkoutID: "another-checkout"))
        let posts = transport.requests.filter { $0.method == .post }
        #expect(posts.count == 3)
        #expect(posts[0].idempotencyKey == posts[1].idempotencyKey)
        #expect(StripeFormEncoding.body(posts[0].form) == StripeFormEncoding.body(posts[1].form), "the same key must come with the same parameters")
        #expect(posts[2].idempotencyKey == "storefront-checkout-another-checkout")
    }

    @Test func badPricesAndClaimsAreRefusedBeforeASessionIsMade() async {
        let (client, transport) = client { request throws(ProviderError) in try sessionAnswer(request) }
        for (price, kind) in [("price_Old", ProviderError.Kind.validation), ("price_Nope", .notFound), ("../v1/charges", .validation)] {
            do throws(ProviderError) {
                _ = try await client.createCheckout(checkoutRequest(price))
                Issue.record("\(price) made a session")
            } catch {
                #expect(error.kind == kind, "\(price)")
                #expect(error.provider == Self.provider && error.operation == "createCheckout")
            }
        }
        var long = checkoutRequest("price_M")
        long.appUserID = String(repeating: "u", count: 501)
        await #expect(throws: ProviderError.self) { try await client.createCheckout(long) }
        #expect(transport.requests.allSatisfy { $0.method == .get })
    }

    // MARK: - Subscriptions

    @Test func cancelAndResumeSetTheFlagEachUnderItsOwnKey() async throws {
        let (client, transport) = client { request throws(ProviderError) in
            guard request.path == "/v1/subscriptions/sub_1" else { throw FakeStripeTransport.missing(request) }
            let flag = request.form.first { $0.name == "cancel_at_period_end" }?.value
            return Self.subscription("sub_1", cancelAtPeriodEnd: flag == "true")
        }
        let cancelled = try await client.cancelSubscription(id: "sub_1")
        #expect(cancelled.cancelled && cancelled.status == "active")
        #expect(cancelled.endsAt == Date(timeIntervalSince1970: 1_752_592_000) && cancelled.renewsAt == nil)
        let resumed = try await client.resumeSubscription(id: "sub_1")
        #expect(!resumed.cancelled && resumed.endsAt == nil && resumed.renewsAt == Date(timeIntervalSince1970: 1_752_592_000))
        #expect(resumed.variantID == "price_M" && resumed.productID == "prod_P" && resumed.customerID == "cus_1")
        _ = try await client.cancelSubscription(id: "sub_1")

        let requests = transport.requests
        #expect(requests.map { form($0)["cancel_at_period_end"] } == ["true", "false", "true"])
        #expect(requests.map(\.operation) == ["cancelSubscription", "resumeSubscription", "cancelSubscription"])
        let keys = requests.compactMap(\.idempotencyKey)
        #expect(keys.count == 3 && Set(keys).count == 3, "a second cancel is a new intent, not a replay of the first")
        #expect(keys.allSatisfy { $0.hasPrefix("storefront-") && $0.count <= 255 })
        await #expect(throws: ProviderError.self) { try await client.cancelSubscription(id: "sub_1/../x") }
        #expect(transport.requests.count == 3)
    }

    @Test func thePortalIsOpenedForTheSubscriptionsCustomer() async throws {
        let (client, transport) = client { request throws(ProviderError) in
            switch request.path {
            case "/v1/subscriptions/sub_1": return Self.subscription("sub_1", customer: "cus_9")
            case "/v1/billing_portal/sessions":
                return #"{"id":"bps_1","object":"billing_portal.session","url":"https://billing.stripe.test/p/session/bps_1"}"#
            default: throw FakeStripeTransport.missing(request)
            }
        }
        #expect(try await client.managementURL(subscriptionID: "sub_1") == "https://billing.stripe.test/p/session/bps_1")
        let post = try #require(transport.requests.last)
        #expect(post.method == .post && post.idempotencyKey != nil)
        #expect(form(post) == ["customer": "cus_9", "return_url": "https://app.example/account"])
    }

    @Test func subscriptionsOfAnEmailAreEveryCustomersEveryStatus() async throws {
        let (client, transport) = client { request throws(ProviderError) in
            switch (request.path, request.queryValue("customer")) {
            case ("/v1/customers", _):
                guard request.queryValue("email") == "ada@example.com" else { return FakeStripeTransport.list([]) }
                return FakeStripeTransport.list([
                    #"{"id":"cus_1","object":"customer","email":"ada@example.com"}"#,
                    #"{"id":"cus_2","object":"customer","email":"ada@example.com"}"#,
                ])
            case ("/v1/subscriptions", "cus_1"?): return FakeStripeTransport.list([Self.subscription("sub_1")])
            case ("/v1/subscriptions", "cus_2"?): return FakeStripeTransport.list([Self.subscription("sub_2", status: "canceled", customer: "cus_2")])
            default: throw FakeStripeTransport.missing(request)
            }
        }
        let found = try await client.subscriptions(customerEmail: try #require(EmailAddress("ada@example.com")))
        #expect(found.map(\.id) == ["sub_1", "sub_2"])
        #expect(found.allSatisfy { $0.customerEmail == "ada@example.com" })
        #expect(found.last?.cancelled == true && found.last?.renewsAt == nil)
        #expect(transport.requests.filter { $0.path == "/v1/subscriptions" }.allSatisfy { $0.queryValue("status") == "all" })
        #expect(try await client.subscriptions(customerEmail: try #require(EmailAddress("nobody@example.com"))).isEmpty)
    }

    // MARK: - Reconciliation

    @Test func theSweepPagesSubscriptionsCreatedSinceATime() async throws {
        let (client, transport) = client(pageSize: 1) { request throws(ProviderError) in
            switch request.queryValue("starting_after") {
            case nil: return FakeStripeTransport.list([Self.subscription("sub_2")], hasMore: true)
            case "sub_2"?: return FakeStripeTransport.list([Self.subscription("sub_1")])
            default: throw FakeStripeTransport.missing(request)
            }
        }
        let first = try await client.subscriptionsPage(createdSince: Date(timeIntervalSince1970: 1_749_000_000.9))
        #expect(first.hasMore && first.nextCursor == "sub_2" && first.items.count == 1)
        #expect(String(decoding: first.items[0].raw, as: UTF8.self).hasPrefix(#"{"id":"sub_2""#))
        let last = try await client.subscriptionsPage(createdSince: Date(timeIntervalSince1970: 1_749_000_000), startingAfter: first.nextCursor)
        #expect(!last.hasMore && last.nextCursor == nil && last.items.first?.json["id"]?.string == "sub_1")
        #expect(transport.requests.allSatisfy { $0.queryValue("status") == "all" && $0.queryValue("created[gte]") == "1749000000" })
    }

    @Test func aFetchedObjectMustBeTheOneAskedFor() async throws {
        let (client, _) = client { request throws(ProviderError) in
            switch request.path {
            case "/v1/payment_intents/pi_1": return #"{"id":"pi_1","object":"payment_intent","metadata":{}}"#
            case "/v1/checkout/sessions/cs_1": return #"{"id":"cs_other","object":"checkout.session"}"#
            default: throw FakeStripeTransport.missing(request)
            }
        }
        #expect(try await client.paymentIntentDocument(id: "pi_1").json["object"]?.string == "payment_intent")
        do throws(ProviderError) {
            _ = try await client.checkoutSessionDocument(id: "cs_1")
            Issue.record("another session was taken for the one asked for")
        } catch {
            #expect(error.kind == .decoding)
        }
        do throws(ProviderError) {
            _ = try await client.subscriptionDocument(id: "sub_nope")
            Issue.record("a missing subscription was found")
        } catch {
            #expect(error.kind == .notFound)
        }
    }
}
