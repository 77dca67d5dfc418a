import BillingModel
import Foundation
import HTTPClient
import JSONCodec
import ProviderConfiguration
import Webhooks

/// Stripe's API for Storefront: the catalog from Products and Prices, hosted
/// Checkout Sessions, subscriptions, cancel and resume at the period's end,
/// and the Billing portal.
///
/// Every POST carries an `Idempotency-Key` (``StripeIdempotencyKey``), so
/// writes are retried like reads (see ``StripeHTTPTransport``). Lists follow
/// Stripe's cursor pagination (`limit`, `starting_after`, `has_more`),
/// bounded by ``maximumPages``.
///
public struct StripeClient: PaymentProvider, CustomStringConvertible {
    public let provider: Provider
    public let configuration: StripeConfiguration
    /// `limit` of list calls (1…100).
    public let pageSize: Int
    /// Safety bound on pages followed per list.
    public let maximumPages: Int
    let transport: any StripeTransport
    let now: @Sendable () -> Date
    /// Where the sweeps' pages ended (``StripePageCursors``).
    let cursors = StripePageCursors()

    /// A client over HTTP.
    /// - Parameters:
    ///   - provider: the value Storefront names Stripe by.
    ///   - httpClient: the process's shared client.
    ///   - retryPolicy: backoff for retried calls; 429 and every 5xx are retryable.
    ///   - budget: paces every request, retries included (nil: at once).
    public init(
        provider: Provider, configuration: StripeConfiguration, httpClient: HTTPClient, pageSize: Int = 100, maximumPages: Int = 200,
        retryPolicy: RetryPolicy = ProviderRetry.defaultPolicy, budget: (any ProviderRequestBudget)? = nil
    ) {
        self.init(
            provider: provider, configuration: configuration,
            transport: StripeHTTPTransport(
                provider: provider, configuration: configuration, httpClient: httpClient, retryPolicy: retryPolicy, budget: budget),
            pageSize: pageSize, maximumPages: maximumPages)
    }

    /// A client over any transport (tests give a fake one).
    /// - Parameter now: the clock that places a checkout's `expires_at` in Stripe's window.
    public init(
        provider: Provider, configuration: StripeConfiguration, transport: any StripeTransport, pageSize: Int = 100, maximumPages: Int = 200,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.provider = provider
        self.configuration = configuration
        self.transport = transport
        self.pageSize = min(max(pageSize, 1), 100)
        self.maximumPages = max(1, maximumPages)
        self.now = now
    }

    /// Names the endpoint, never the key.
    public var description: String { "StripeClient(\(provider.rawValue), \(configuration))" }

    // MARK: - Catalog

    /// Active products and their active prices (`GET /v1/products?active=true`,
    /// `GET /v1/prices?active=true`, every page); see ``StripeCatalogMapper``.
    public func catalog() async throws(ProviderError) -> [CatalogItem] {
        let operation = "catalog"
        let products = try await list(operation, "/v1/products", [("active", "true")])
        let prices = try await list(operation, "/v1/prices", [("active", "true")])
        return StripeCatalogMapper.items(products: products, prices: prices, provider: provider)
    }

    // MARK: - Checkout

    /// `GET /v1/prices/{id}` (a recurring price is bought in `subscription`
    /// mode, a one-time one in `payment` mode), the promotion code's id when
    /// one is given (``promotionCodeID(_:operation:)``), then `POST /v1/checkout/sessions`
    /// with ``StripeCheckoutForm``'s fields, keyed by Storefront's checkout id.
    public func createCheckout(_ request: CheckoutRequest) async throws(ProviderError) -> ProviderCheckout {
        let operation = "createCheckout"
        try checkID(request.variantID, operation, what: "price id")
        let price = try await send(StripeRequest(operation: operation, method: .get, path: "/v1/prices/\(request.variantID)")).json
        guard price["object"]?.string == "price", price["active"]?.bool == true,
            let productID = price["product"]?.string ?? price["product", "id"]?.string
        else {
            throw failure(operation, .validation, "price is not an active price")
        }
        // The Product's name, for the subscription's metadata (its events name only the Price).
        let product = try? await send(StripeRequest(operation: operation, method: .get, path: "/v1/products/\(productID)")).json
        guard let successURL = request.redirectURL ?? configuration.successURL else {
            throw failure(operation, .validation, "Stripe Checkout needs a return page: set CHECKOUT_REDIRECT_URL or STRIPE_RETURN_URL")
        }
        var offer = StripeCheckoutForm.Offer(automaticTax: configuration.automaticTax, allowPromotionCodes: configuration.allowPromotionCodes)
        if let code = request.promotionCode { offer.promotionCodeID = try await promotionCodeID(code, operation: operation) }
        let fields: [StripeField]
        do throws(StripeCheckoutForm.Refusal) {
            fields = try StripeCheckoutForm.fields(
                request, productID: productID, productName: product?["name"]?.string, subscription: price["type"]?.string == "recurring",
                successURL: successURL, cancelURL: configuration.cancelURL, offer: offer, now: now())
        } catch {
            throw failure(operation, error.offer ? .offerRefused : .validation, error.message)
        }
        var key = StripeIdempotencyKey.checkout(request.checkoutID)
        if key == nil { key = try randomKey(operation) }
        let session = try await send(
            StripeRequest(operation: operation, method: .post, path: "/v1/checkout/sessions", form: fields, idempotencyKey: key)
        ).json
        guard session["object"]?.string == "checkout.session", let id = session["id"]?.string, let url = session["url"]?.string else {
            throw failure(operation, .decoding, "answer is not an open checkout session with a url")
        }
        return ProviderCheckout(
            provider: provider, providerCheckoutID: id, url: url,
            expiresAt: session["expires_at"]?.int64.map { Date(timeIntervalSince1970: TimeInterval($0)) },
            testMode: session["livemode"]?.bool.map { !$0 })
    }

    // MARK: - Subscriptions

    /// `GET /v1/subscriptions/{id}` with the customer expanded (for the email).
    public func subscription(id: String) async throws(ProviderError) -> ProviderSubscription {
        let operation = "subscription"
        try checkID(id, operation, what: "subscription id")
        return try subscription(
            operation,
            try await send(StripeRequest(operation: operation, method: .get, path: "/v1/subscriptions/\(id)", query: [("expand[]", "customer")])))
    }

    /// `GET /v1/customers?email=…` (Stripe matches the email exactly, case
    /// included), then each customer's `GET /v1/subscriptions?customer=…&status=all`,
    /// every page. An unknown email yields `[]`.
    public func subscriptions(customerEmail: EmailAddress) async throws(ProviderError) -> [ProviderSubscription] {
        let operation = "subscriptions"
        let customers = try await list(operation, "/v1/customers", [("email", customerEmail.value)])
        var result: [ProviderSubscription] = []
        for customer in customers {
            guard let customerID = customer["id"]?.string else { continue }
            for object in try await list(operation, "/v1/subscriptions", [("customer", customerID), ("status", "all")]) {
                guard let parsed = try? StripeSubscription(object) else { continue }
                var subscription = StripeSubscriptionMapper.subscription(parsed, provider: provider)
                subscription.customerEmail = subscription.customerEmail ?? customer["email"]?.string
                result.append(subscription)
            }
        }
        return result
    }

    /// `POST /v1/subscriptions/{id}` with `cancel_at_period_end=true`: it runs
    /// to the end of the paid period (or trial) and then ends.
    public func cancelSubscription(id: String) async throws(ProviderError) -> ProviderSubscription {
        try await setCancelAtPeriodEnd(true, id: id, operation: "cancelSubscription")
    }

    /// `POST /v1/subscriptions/{id}` with `cancel_at_period_end=false`, possible
    /// until the period ends (Stripe refuses it for a `canceled` subscription).
    public func resumeSubscription(id: String) async throws(ProviderError) -> ProviderSubscription {
        try await setCancelAtPeriodEnd(false, id: id, operation: "resumeSubscription")
    }

    /// A Billing portal session for the subscription's customer
    /// (`POST /v1/billing_portal/sessions`): its `url` is short-lived, so it is made per call.
    public func managementURL(subscriptionID: String) async throws(ProviderError) -> String {
        let operation = "managementURL"
        try checkID(subscriptionID, operation, what: "subscription id")
        let subscription = try await send(StripeRequest(operation: operation, method: .get, path: "/v1/subscriptions/\(subscriptionID)")).json
        guard let customer = subscription["customer"]?.string ?? subscription["customer", "id"]?.string else {
            throw failure(operation, .decoding, "subscription names no customer")
        }
        var form = [StripeField("customer", .string(customer))]
        // Without one, the portal's own configuration names the way back.
        if let back = configuration.portalReturnURL ?? configuration.successURL { form.append(StripeField("return_url", .string(back))) }
        let session = try await send(
            StripeRequest(
                operation: operation, method: .post, path: "/v1/billing_portal/sessions", form: form, idempotencyKey: try randomKey(operation))
        ).json
        guard let url = session["url"]?.string else { throw failure(operation, .decoding, "portal session has no url") }
        return url
    }

    // MARK: - Helpers

    private func setCancelAtPeriodEnd(_ flag: Bool, id: String, operation: String) async throws(ProviderError) -> ProviderSubscription {
        try checkID(id, operation, what: "subscription id")
        let request = StripeRequest(
            operation: operation, method: .post, path: "/v1/subscriptions/\(id)",
            form: [StripeField("cancel_at_period_end", .string(flag ? "true" : "false"))], idempotencyKey: try randomKey(operation))
        return try subscription(operation, try await send(request))
    }

    func subscription(_ operation: String, _ document: ProviderDocument) throws(ProviderError) -> ProviderSubscription {
        guard document.json["object"]?.string == "subscription", let parsed = try? StripeSubscription(document.json) else {
            throw failure(operation, .decoding, "answer is not a subscription")
        }
        return StripeSubscriptionMapper.subscription(parsed, provider: provider)
    }

    func send(_ request: StripeRequest) async throws(ProviderError) -> ProviderDocument {
        try await transport.send(request)
    }

    /// Every item of a list, following `starting_after` while `has_more`, up to ``maximumPages``.
    func list(_ operation: String, _ path: String, _ filters: [(String, String)]) async throws(ProviderError) -> [JSONValue] {
        var items: [JSONValue] = []
        var cursor: String?
        for _ in 0..<maximumPages {
            let page = try await listPage(operation, path, filters, startingAfter: cursor)
            items += page.items.map(\.json)
            guard page.hasMore else { return items }
            cursor = page.nextCursor
        }
        throw failure(operation, .decoding, "more than \(maximumPages) pages; refusing to continue")
    }

    /// One page of a list; the next cursor is its last item's id.
    func listPage(
        _ operation: String, _ path: String, _ filters: [(String, String)], startingAfter cursor: String?
    ) async throws(ProviderError) -> StripePage {
        var query = filters.map { (name: $0.0, value: $0.1) } + [(name: "limit", value: String(pageSize))]
        if let cursor { query.append((name: "starting_after", value: cursor)) }
        let document = try await send(StripeRequest(operation: operation, method: .get, path: path, query: query))
        guard document.json["object"]?.string == "list", let data = document.json["data"]?.array,
            let raw = JSONSlices.arrayElements(ofTopLevelKey: "data", in: document.body), raw.count == data.count
        else {
            throw failure(operation, .decoding, "answer is not a list")
        }
        let hasMore = document.json["has_more"]?.bool ?? false
        let next = data.last?["id"]?.string
        if hasMore {
            // A list that says more follows must give a new cursor, or paging would repeat forever.
            guard let next, next != cursor else { throw failure(operation, .decoding, "list says has_more without a new last id") }
        }
        return StripePage(items: zip(raw, data).map { ProviderPage.Item(raw: $0, json: $1) }, hasMore: hasMore, nextCursor: hasMore ? next : nil)
    }

    func checkID(_ id: String, _ operation: String, what: String) throws(ProviderError) {
        guard ProviderIDs.isSafe(id) else { throw failure(operation, .validation, "\(what) has unexpected characters") }
    }

    func randomKey(_ operation: String) throws(ProviderError) -> String {
        guard let key = StripeIdempotencyKey.random(operation) else { throw failure(operation, .unavailable, "random generator failed") }
        return key
    }

    /// A failure found here, before or after the call (messages never hold a value the caller sent).
    func failure(_ operation: String, _ kind: ProviderError.Kind, _ message: String) -> ProviderError {
        ProviderError(provider: provider, operation: operation, kind: kind, message: message)
    }
}
