import ServiceSettings
import Foundation
import HTTPClient
import BillingModel
import JSONCodec
import ProviderConfiguration
import Webhooks

/// The Lemon Squeezy REST API (JSON:API) for Storefront: catalog, checkouts, subscriptions.
///
/// Retries: reads, `DELETE` (cancel) and `PATCH cancelled:false` (resume) are
/// idempotent and retried on 429/5xx/transient transport errors with backoff.
/// `POST /v1/checkouts` has no idempotency key, so it is repeated only when
/// Lemon Squeezy certainly did not process it (429, refused connection,
/// unresolved host) — never after a timeout or 5xx, which could leave two
/// checkouts behind.
public struct LemonSqueezyClient: PaymentProvider, CustomStringConvertible {
    public var provider: Provider { .lemonsqueezy }
    public let configuration: LemonSqueezyConfiguration
    /// `page[size]` of list calls.
    public let pageSize: Int
    /// Safety bound on pages followed per list.
    public let maximumPages: Int
    let transport: ProviderTransport

    /// - Parameters:
    ///   - httpClient: shared process-wide client.
    ///   - pageSize: `page[size]` of list calls (1…100).
    ///   - retryPolicy: backoff for retried calls; 429 and every 5xx are retryable.
    ///   - budget: paces every request, retries included (nil: requests go out at once).
    public init(
        configuration: LemonSqueezyConfiguration, httpClient: HTTPClient, pageSize: Int = 50, maximumPages: Int = 200,
        retryPolicy: RetryPolicy = ProviderRetry.defaultPolicy, budget: (any ProviderRequestBudget)? = nil
    ) {
        self.configuration = configuration
        self.pageSize = min(max(pageSize, 1), 100)
        self.maximumPages = max(1, maximumPages)
        transport = ProviderTransport(
            provider: .lemonsqueezy, errorFormat: LemonSqueezyErrorFormat(), client: httpClient, baseURL: configuration.apiBaseURL,
            headers: HTTPHeaders([("Accept", "application/vnd.api+json"), ("Content-Type", "application/vnd.api+json")]),
            bearer: configuration.apiKey ?? Secret(""), retryPolicy: retryPolicy,
            secrets: [configuration.apiKey, configuration.webhookSecret].compactMap { $0 },
            budget: budget)
    }

    /// Names the endpoint, never the key.
    public var description: String { "LemonSqueezyClient(\(configuration.apiBaseURL), store \(storeID))" }

    /// `filter[store_id]` of list calls; a configuration without API
    /// credentials (``LemonSqueezyConfiguration/hasAPICredentials``) builds no client.
    var storeID: String { configuration.storeID ?? "" }

    // MARK: - Catalog

    /// Published products of the store with their variants (`include=variants`),
    /// all pages; see ``LemonSqueezyCatalogMapper`` for which variants are kept.
    public func catalog() async throws(ProviderError) -> [CatalogItem] {
        let operation = "catalog"
        var products: [JSONValue] = []
        var included: [JSONValue] = []
        try await forEachPage(operation, "/v1/products", filters: [("filter[store_id]", storeID), ("include", "variants")]) { page in
            products += page["data"]?.array ?? []
            included += page["included"]?.array ?? []
        }
        return LemonSqueezyCatalogMapper.items(products: products, included: included, currency: configuration.storeCurrency)
    }

    // MARK: - Checkout

    /// `POST /v1/checkouts` for the store and variant, with the buyer's email,
    /// Storefront's ids as `checkout_data.custom`, the promotion code as
    /// `checkout_data.discount_code`, the redirect URL and expiry. A trial is
    /// refused: Lemon Squeezy sets it on the variant.
    public func createCheckout(_ request: CheckoutRequest) async throws(ProviderError) -> ProviderCheckout {
        let operation = "createCheckout"
        guard ProviderIDs.isNumeric(request.variantID) else {
            throw transport.failure(operation, .validation, message: "variant id must be numeric")
        }
        if request.trialDays != nil {
            throw transport.failure(operation, .offerRefused, message: "a Lemon Squeezy trial is set on the variant, not per checkout")
        }
        let body = LemonSqueezyRequests.checkout(request, storeID: storeID, testMode: configuration.testMode)
        let document = try await transport.send(operation, .post, "/v1/checkouts", body: body, retry: .unprocessedOnly)
        guard let id = document["data", "id"]?.string, let url = document["data", "attributes", "url"]?.string else {
            throw transport.failure(operation, .decoding, message: "checkout response lacks data.id or data.attributes.url")
        }
        return ProviderCheckout(
            provider: .lemonsqueezy, providerCheckoutID: id, url: url, expiresAt: document["data", "attributes", "expires_at"]?.date,
            testMode: document["data", "attributes", "test_mode"]?.bool)
    }

    // MARK: - Subscriptions

    public func subscription(id: String) async throws(ProviderError) -> ProviderSubscription {
        let operation = "subscription"
        try checkID(id, operation)
        return try decode(operation, try await transport.send(operation, .get, "/v1/subscriptions/\(id)", retry: .idempotent))
    }

    /// `GET /v1/subscriptions?filter[store_id]&filter[user_email]`, all pages.
    public func subscriptions(customerEmail: EmailAddress) async throws(ProviderError) -> [ProviderSubscription] {
        let operation = "subscriptions"
        var resources: [JSONValue] = []
        try await forEachPage(operation, "/v1/subscriptions", filters: [("filter[store_id]", storeID), ("filter[user_email]", customerEmail.value)]) {
            page in
            resources += page["data"]?.array ?? []
        }
        return resources.compactMap(LemonSqueezySubscriptionMapper.subscription)
    }

    /// `DELETE /v1/subscriptions/{id}`: cancelled at period end (`ends_at`).
    public func cancelSubscription(id: String) async throws(ProviderError) -> ProviderSubscription {
        let operation = "cancelSubscription"
        try checkID(id, operation)
        return try decode(operation, try await transport.send(operation, .delete, "/v1/subscriptions/\(id)", retry: .idempotent))
    }

    /// `PATCH /v1/subscriptions/{id}` with `cancelled: false` (possible until `ends_at`;
    /// an expired subscription cannot be resumed and the provider says so).
    public func resumeSubscription(id: String) async throws(ProviderError) -> ProviderSubscription {
        let operation = "resumeSubscription"
        try checkID(id, operation)
        let body: JSONValue = ["data": ["type": "subscriptions", "id": .string(id), "attributes": ["cancelled": false]]]
        // Setting a flag to a fixed value is idempotent, so it may be repeated.
        return try decode(operation, try await transport.send(operation, .patch, "/v1/subscriptions/\(id)", body: body, retry: .idempotent))
    }

    /// Lemon Squeezy switches plans at once only: `PATCH` takes no date to
    /// switch at (docs/plan-changes.md), so a change at period end is refused
    /// before any call.
    public var planChangeTimings: Set<PlanChange.Effective> { [.now] }

    /// `PATCH /v1/subscriptions/{id}` with `variant_id`. `prorate` sends
    /// `invoice_immediately: true` (the prorated difference is charged now);
    /// `none` sends `disable_prorations: true` (the new price from the next
    /// renewal, no credit).
    public func changePlan(subscriptionID id: String, _ change: PlanChange) async throws(ProviderError) -> ProviderSubscription {
        let operation = "changePlan"
        try checkID(id, operation)
        guard change.effective == .now else {
            throw transport.failure(operation, .validation, message: "Lemon Squeezy cannot schedule a plan change")
        }
        guard ProviderIDs.isNumeric(change.variantID), let variant = Int64(change.variantID) else {
            throw transport.failure(operation, .validation, message: "variant id must be numeric")
        }
        let body: JSONValue = [
            "data": [
                "type": "subscriptions", "id": .string(id),
                "attributes": [
                    "variant_id": .integer(variant), "invoice_immediately": .bool(change.proration == .prorate),
                    "disable_prorations": .bool(change.proration == .none),
                ],
            ]
        ]
        // An invoice may be charged: repeated only when Lemon Squeezy certainly did not process it.
        return try decode(operation, try await transport.send(operation, .patch, "/v1/subscriptions/\(id)", body: body, retry: .unprocessedOnly))
    }

    /// The subscription's `urls.customer_portal`, from a fresh fetch (the URLs are signed for 24 h).
    public func managementURL(subscriptionID: String) async throws(ProviderError) -> String {
        let operation = "managementURL"
        try checkID(subscriptionID, operation)
        let subscription = try decode(operation, try await transport.send(operation, .get, "/v1/subscriptions/\(subscriptionID)", retry: .idempotent))
        guard let url = subscription.customerPortalURL else {
            throw transport.failure(operation, .notFound, message: "subscription has no customer portal URL")
        }
        return url
    }

    // MARK: - Raw documents and pages (reconciliation)

    /// `GET /v1/subscriptions/{id}`: the JSON:API document byte for byte.
    /// - Throws: ``ProviderError`` (`.notFound` when the store has no such subscription).
    public func subscriptionDocument(id: String) async throws(ProviderError) -> ProviderDocument {
        try await resourceDocument("subscriptionDocument", type: "subscriptions", id: id)
    }

    /// `GET /v1/orders/{id}`: the JSON:API document byte for byte.
    /// - Throws: ``ProviderError`` (`.notFound` when the store has no such order).
    public func orderDocument(id: String) async throws(ProviderError) -> ProviderDocument {
        try await resourceDocument("orderDocument", type: "orders", id: id)
    }

    /// Page `number` of `GET /v1/subscriptions?filter[store_id]=…` (newest first),
    /// ``pageSize`` items, each item's bytes as the page holds them.
    public func subscriptionsPage(_ number: Int) async throws(ProviderError) -> ProviderPage {
        try await page("subscriptionsPage", "/v1/subscriptions", number: number)
    }

    /// Page `number` of `GET /v1/orders?filter[store_id]=…` (newest first).
    public func ordersPage(_ number: Int) async throws(ProviderError) -> ProviderPage {
        try await page("ordersPage", "/v1/orders", number: number)
    }

    private func resourceDocument(_ operation: String, type: String, id: String) async throws(ProviderError) -> ProviderDocument {
        guard ProviderIDs.isNumeric(id) else { throw transport.failure(operation, .validation, message: "\(type) id must be numeric") }
        let document = try await transport.sendDocument(operation, .get, "/v1/\(type)/\(id)", retry: .idempotent)
        guard document.json["data", "type"]?.string == type, document.json["data", "id"]?.string == id else {
            throw transport.failure(operation, .decoding, message: "response is not the \(type) resource asked for")
        }
        return document
    }

    /// One page; the URL is built here, never taken from `links`, as in `forEachPage`.
    private func page(_ operation: String, _ path: String, number: Int) async throws(ProviderError) -> ProviderPage {
        let number = max(1, number)
        let query = [("filter[store_id]", storeID), ("page[number]", String(number)), ("page[size]", String(pageSize))]
        let document = try await transport.sendDocument(operation, .get, path, query: query, retry: .idempotent)
        guard let data = document.json["data"]?.array, let raw = JSONSlices.arrayElements(ofTopLevelKey: "data", in: document.body),
            raw.count == data.count
        else {
            throw transport.failure(operation, .decoding, message: "list response lacks a data array")
        }
        let lastPage = document.json["meta", "page", "lastPage"]?.int64
        let hasMore = lastPage.map { Int64(number) < $0 } ?? (document.json["links", "next"]?.string != nil)
        return ProviderPage(
            number: number, items: zip(raw, data).map { ProviderPage.Item(raw: $0, json: $1) }, hasMore: hasMore && !data.isEmpty,
            total: document.json["meta", "page", "total"]?.int64.map { Int($0) }, pageCount: lastPage.map { Int($0) })
    }

    // MARK: - Helpers

    private func checkID(_ id: String, _ operation: String) throws(ProviderError) {
        guard ProviderIDs.isNumeric(id) else { throw transport.failure(operation, .validation, message: "subscription id must be numeric") }
    }

    private func decode(_ operation: String, _ document: JSONValue) throws(ProviderError) -> ProviderSubscription {
        guard let data = document["data"], let subscription = LemonSqueezySubscriptionMapper.subscription(data) else {
            throw transport.failure(operation, .decoding, message: "response is not a subscription resource")
        }
        return subscription
    }

    /// Requests pages 1, 2, … until `meta.page.lastPage` (or, without meta, until
    /// `links.next` is absent). Page URLs are built here, never taken from
    /// `links`, so the bearer key only ever goes to the configured host.
    private func forEachPage(
        _ operation: String, _ path: String, filters: [(String, String)], _ body: (JSONValue) -> Void
    ) async throws(ProviderError) {
        var number = 1
        while true {
            let query = filters + [("page[number]", String(number)), ("page[size]", String(pageSize))]
            let page = try await transport.send(operation, .get, path, query: query, retry: .idempotent)
            guard page["data"]?.array != nil else { throw transport.failure(operation, .decoding, message: "list response lacks a data array") }
            body(page)
            let more: Bool
            if let last = page["meta", "page", "lastPage"]?.int64 {
                more = Int64(number) < last
            } else {
                more = page["links", "next"]?.string != nil
            }
            guard more, page["data"]?.array?.isEmpty == false else { return }
            guard number < maximumPages else {
                throw transport.failure(operation, .decoding, message: "more than \(maximumPages) pages; refusing to continue")
            }
            number += 1
        }
    }
}
