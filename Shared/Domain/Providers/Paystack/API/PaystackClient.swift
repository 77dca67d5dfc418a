import CryptoPrimitives
import Foundation
import HTTPClient
import BillingModel
import JSONCodec
import ServiceSettings
import ProviderConfiguration
import Webhooks

/// The Paystack API for Storefront: plans as catalog, hosted checkout via
/// `POST /transaction/initialize`, subscriptions.
///
/// Retries: reads, and `subscription/disable` / `enable` (they set a state, so
/// repeating them changes nothing) are retried on 429/5xx/transient transport
/// errors. `transaction/initialize` always carries a reference Storefront
/// generated, and Paystack refuses a second transaction with the same
/// reference (`duplicate_reference`), so a repeat can never create two
/// transactions — but a repeat after a lost answer would report a duplicate
/// instead of the URL. It is therefore repeated only when Paystack certainly
/// did not process it (429, refused connection, unresolved host); after a
/// timeout or 5xx the caller gets `.unavailable` and starts a new checkout.
public struct PaystackClient: PaymentProvider, CustomStringConvertible {
    public var provider: Provider { .paystack }
    public let configuration: PaystackConfiguration
    /// `perPage` of list calls.
    public let pageSize: Int
    /// Safety bound on pages followed per list.
    public let maximumPages: Int
    let transport: ProviderTransport

    /// - Parameters:
    ///   - httpClient: shared process-wide client.
    ///   - pageSize: `perPage` of list calls (1…100).
    ///   - retryPolicy: backoff for retried calls; 429 and every 5xx are retryable.
    ///   - budget: paces every request, retries included (nil: requests go out at once).
    public init(
        configuration: PaystackConfiguration, httpClient: HTTPClient, pageSize: Int = 50, maximumPages: Int = 200,
        retryPolicy: RetryPolicy = ProviderRetry.defaultPolicy, budget: (any ProviderRequestBudget)? = nil
    ) {
        self.configuration = configuration
        self.pageSize = min(max(pageSize, 1), 100)
        self.maximumPages = max(1, maximumPages)
        transport = ProviderTransport(
            provider: .paystack, errorFormat: PaystackErrorFormat(), client: httpClient, baseURL: configuration.apiBaseURL,
            headers: HTTPHeaders([("Accept", "application/json"), ("Content-Type", "application/json")]),
            bearer: configuration.secretKey, retryPolicy: retryPolicy, secrets: [configuration.secretKey], budget: budget)
    }

    /// Whether the key is a live-mode key (`sk_live_…`); Paystack's rate limits differ by mode.
    public var isLiveMode: Bool { configuration.secretKey.reveal().hasPrefix("sk_live_") }

    /// Names the endpoint, never the key.
    public var description: String { "PaystackClient(\(configuration.apiBaseURL))" }

    // MARK: - Catalog

    /// Every plan (`GET /plan`, all pages) as one catalog item each.
    public func catalog() async throws(ProviderError) -> [CatalogItem] {
        let operation = "catalog"
        var plans: [JSONValue] = []
        try await forEachPage(operation, "/plan", filters: []) { plans += $0 }
        return PaystackMapper.catalogItems(plans)
    }

    // MARK: - Checkout

    /// `POST /transaction/initialize` with email, amount, plan, callback URL,
    /// Storefront's ids in `metadata`, and a reference (``CheckoutRequest/reference``
    /// or `sf-` + 24 random hex digits). Returns `authorization_url` and the reference.
    /// Transaction initialisation has no promotion code, trial or language
    /// parameter: a code or a trial is refused, a locale is ignored.
    public func createCheckout(_ request: CheckoutRequest) async throws(ProviderError) -> ProviderCheckout {
        let operation = "createCheckout"
        if request.promotionCode != nil || request.trialDays != nil {
            throw transport.failure(operation, .offerRefused, message: "Paystack checkouts take no promotion code or trial")
        }
        guard let email = request.email else { throw transport.failure(operation, .validation, message: "Paystack needs the buyer's email") }
        guard ProviderIDs.isSafe(request.variantID) else {
            throw transport.failure(operation, .validation, message: "plan code has unexpected characters")
        }
        let reference: String
        if let given = request.reference {
            reference = given
        } else {
            reference = try Self.makeReference(failure: transport.failure(operation, .unavailable, message: "random generator failed"))
        }
        guard Self.isValidReference(reference) else {
            throw transport.failure(operation, .validation, message: "reference may only hold letters, digits, '-', '.', '=' (at most 100)")
        }
        var amount = request.amount
        if amount == nil {
            // The plan overrides the amount, but the API still requires one.
            let plan = try await transport.send(operation, .get, "/plan/\(request.variantID)", retry: .idempotent)
            amount = plan["data", "amount"]?.int64
        }
        guard let amount, amount > 0 else { throw transport.failure(operation, .validation, message: "no amount for plan") }

        var body: JSONObject = [
            "email": .string(email.value), "amount": .integer(amount), "plan": .string(request.variantID), "reference": .string(reference),
            "metadata": .object(JSONObject(request.customData.mapValues(JSONValue.string))),
        ]
        if let callback = request.redirectURL { body["callback_url"] = .string(callback) }
        let document = try await transport.send(operation, .post, "/transaction/initialize", body: .object(body), retry: .unprocessedOnly)
        guard let url = document["data", "authorization_url"]?.string else {
            throw transport.failure(operation, .decoding, message: "initialize response lacks data.authorization_url")
        }
        return ProviderCheckout(
            provider: .paystack, providerCheckoutID: document["data", "reference"]?.string ?? reference, url: url,
            accessCode: document["data", "access_code"]?.string)
    }

    /// `sf-` + 24 hex digits from the CSPRNG (Paystack allows `-`, `.`, `=`, alphanumerics).
    static func makeReference(failure: @autoclosure () -> ProviderError) throws(ProviderError) -> String {
        do {
            return "sf-" + Hex.encode(try SecureRandom.bytes(count: 12))
        } catch {
            throw failure()
        }
    }

    static func isValidReference(_ reference: String) -> Bool {
        !reference.isEmpty && reference.utf8.count <= 100
            && reference.utf8.allSatisfy { byte in
                (QueryString.isUnreserved(byte) && byte != UInt8(ascii: "_") && byte != UInt8(ascii: "~")) || byte == UInt8(ascii: "=")
            }
    }

    // MARK: - Subscriptions

    /// `GET /subscription/{code}`.
    public func subscription(id: String) async throws(ProviderError) -> ProviderSubscription {
        try await fetch("subscription", code: id)
    }

    /// `GET /customer/{email}` for the customer's numeric id, then
    /// `GET /subscription?customer={id}`, all pages. An unknown email yields `[]`.
    public func subscriptions(customerEmail: EmailAddress) async throws(ProviderError) -> [ProviderSubscription] {
        let operation = "subscriptions"
        let customer: JSONValue
        do {
            customer = try await transport.send(operation, .get, "/customer/\(QueryString.percentEncode(customerEmail.value))", retry: .idempotent)
        } catch  where error.kind == .notFound {
            return []
        }
        guard let customerID = customer["data", "id"]?.string else {
            throw transport.failure(operation, .decoding, message: "customer response lacks data.id")
        }
        var items: [JSONValue] = []
        try await forEachPage(operation, "/subscription", filters: [("customer", customerID)]) { items += $0 }
        // A list embeds the customer as an object or only as its id; fill the email in.
        return items.compactMap { item in
            var subscription = PaystackMapper.subscription(item)
            if subscription?.customerEmail == nil { subscription?.customerEmail = customer["data", "email"]?.string }
            if subscription?.customerID == nil { subscription?.customerID = customer["data", "customer_code"]?.string }
            return subscription
        }
    }

    /// Fetches the subscription for its `email_token`, then `POST /subscription/disable`.
    /// Paystack stops future charges; the status becomes `non-renewing` or `cancelled`.
    public func cancelSubscription(id: String) async throws(ProviderError) -> ProviderSubscription {
        try await toggle("cancelSubscription", code: id, path: "/subscription/disable")
    }

    /// Fetches the subscription for its `email_token`, then `POST /subscription/enable`.
    public func resumeSubscription(id: String) async throws(ProviderError) -> ProviderSubscription {
        try await toggle("resumeSubscription", code: id, path: "/subscription/enable")
    }

    /// `GET /subscription/{code}/manage/link` → `data.link` (card update / cancel page).
    public func managementURL(subscriptionID: String) async throws(ProviderError) -> String {
        let operation = "managementURL"
        try checkCode(subscriptionID, operation)
        let document = try await transport.send(operation, .get, "/subscription/\(subscriptionID)/manage/link", retry: .idempotent)
        guard let link = document["data", "link"]?.string else { throw transport.failure(operation, .decoding, message: "response lacks data.link") }
        return link
    }

    // MARK: - Raw documents and pages (reconciliation)

    /// `GET /subscription/{code}`: the `{status, message, data}` envelope byte for byte.
    /// - Throws: ``ProviderError`` (`.notFound` when Paystack has no such subscription).
    public func subscriptionDocument(code: String) async throws(ProviderError) -> ProviderDocument {
        let operation = "subscriptionDocument"
        try checkCode(code, operation)
        let document = try await transport.sendDocument(operation, .get, "/subscription/\(code)", retry: .idempotent)
        guard document.json["data", "subscription_code"]?.string != nil else {
            throw transport.failure(operation, .decoding, message: "response is not a subscription")
        }
        return document
    }

    /// `GET /transaction/verify/{reference}`: the envelope byte for byte.
    /// Paystack answers an unknown reference with 400 "Transaction reference
    /// not found" (`code: transaction_not_found`); that is `.notFound` here.
    /// - Throws: ``ProviderError``.
    public func transactionDocument(reference: String) async throws(ProviderError) -> ProviderDocument {
        let operation = "transactionDocument"
        guard ProviderIDs.isSafe(reference) || Self.isValidReference(reference) else {
            throw transport.failure(operation, .validation, message: "transaction reference has unexpected characters")
        }
        let document: ProviderDocument
        do {
            document = try await transport.sendDocument(
                operation, .get, "/transaction/verify/\(QueryString.percentEncode(reference))", retry: .idempotent)
        } catch  where error.kind == .validation && Self.isUnknownReference(error) {
            throw ProviderError(
                provider: .paystack, operation: operation, kind: .notFound, status: error.status,
                message: error.message, code: error.code)
        }
        guard document.json["data", "reference"]?.string != nil else {
            throw transport.failure(operation, .decoding, message: "response is not a transaction")
        }
        return document
    }

    /// Page `number` of `GET /subscription` (newest first), ``pageSize`` items.
    public func subscriptionsPage(_ number: Int) async throws(ProviderError) -> ProviderPage {
        try await page("subscriptionsPage", "/subscription", number: number)
    }

    /// Page `number` of `GET /transaction` (newest first), ``pageSize`` items.
    public func transactionsPage(_ number: Int) async throws(ProviderError) -> ProviderPage {
        try await page("transactionsPage", "/transaction", number: number)
    }

    static func isUnknownReference(_ error: ProviderError) -> Bool {
        error.code == "transaction_not_found" || error.message.lowercased().contains("reference not found")
    }

    private func page(_ operation: String, _ path: String, number: Int) async throws(ProviderError) -> ProviderPage {
        let number = max(1, number)
        let document = try await transport.sendDocument(
            operation, .get, path, query: [("perPage", String(pageSize)), ("page", String(number))], retry: .idempotent)
        guard let data = document.json["data"]?.array, let raw = JSONSlices.arrayElements(ofTopLevelKey: "data", in: document.body),
            raw.count == data.count
        else {
            throw transport.failure(operation, .decoding, message: "list response lacks a data array")
        }
        let pageCount = document.json["meta", "pageCount"]?.int64
        let hasMore = pageCount.map { Int64(number) < $0 } ?? (data.count >= pageSize)
        return ProviderPage(
            number: number, items: zip(raw, data).map { ProviderPage.Item(raw: $0, json: $1) }, hasMore: hasMore && !data.isEmpty,
            total: document.json["meta", "total"]?.int64.map { Int($0) }, pageCount: pageCount.map { Int($0) })
    }

    // MARK: - Helpers

    private func toggle(_ operation: String, code: String, path: String) async throws(ProviderError) -> ProviderSubscription {
        let current = try await fetch(operation, code: code)
        guard let token = current.emailToken else { throw transport.failure(operation, .decoding, message: "subscription has no email_token") }
        let body: JSONValue = ["code": .string(code), "token": .string(token)]
        _ = try await transport.send(operation, .post, path, body: body, retry: .idempotent)
        return try await fetch(operation, code: code)
    }

    private func fetch(_ operation: String, code: String) async throws(ProviderError) -> ProviderSubscription {
        try checkCode(code, operation)
        let document = try await transport.send(operation, .get, "/subscription/\(code)", retry: .idempotent)
        guard let data = document["data"], let subscription = PaystackMapper.subscription(data) else {
            throw transport.failure(operation, .decoding, message: "response is not a subscription")
        }
        return subscription
    }

    func checkCode(_ code: String, _ operation: String) throws(ProviderError) {
        guard ProviderIDs.isSafe(code) else {
            throw transport.failure(operation, .validation, message: "subscription code has unexpected characters")
        }
    }

    /// Requests `page=1,2,…` with `perPage` until `meta.pageCount` (or, without
    /// meta, until a short page).
    private func forEachPage(
        _ operation: String, _ path: String, filters: [(String, String)], _ body: ([JSONValue]) -> Void
    ) async throws(ProviderError) {
        var number = 1
        while true {
            let page = try await transport.send(
                operation, .get, path, query: filters + [("perPage", String(pageSize)), ("page", String(number))], retry: .idempotent)
            guard let items = page["data"]?.array else { throw transport.failure(operation, .decoding, message: "list response lacks a data array") }
            body(items)
            let more: Bool
            if let count = page["meta", "pageCount"]?.int64 {
                more = Int64(number) < count
            } else {
                more = items.count >= pageSize
            }
            guard more, !items.isEmpty else { return }
            guard number < maximumPages else {
                throw transport.failure(operation, .decoding, message: "more than \(maximumPages) pages; refusing to continue")
            }
            number += 1
        }
    }
}
