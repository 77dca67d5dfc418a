@testable import SeedModels
import Foundation
import HTTPClient
import Testing

/// One app user's walk through the API, as the seed tutorials' iOS code does it.
struct PurchaseFlow {
    let stack: LiveStack
    let provider: String
    let subject: String
    let email: String
    let token: String

    /// A new app user. `email` is what it types at checkout (its own by
    /// default); `tokenHasEmail` false gives it a token without an email claim.
    static func make(_ stack: LiveStack, provider: String, email: String? = nil, tokenHasEmail: Bool = true) async throws -> PurchaseFlow {
        let subject = "user-\(UUID().uuidString.prefix(8).lowercased())"
        let email = email ?? "\(subject)@example.com"
        return PurchaseFlow(
            stack: stack, provider: provider, subject: subject, email: email,
            token: try await stack.token(subject: subject, email: tokenHasEmail ? email : nil))
    }

    /// `GET /api/entitlements`, as JSON objects.
    func entitlements() async throws -> [[String: Any]] {
        let response = try await stack.request(.get, stack.gateway + "/api/entitlements", token: token)
        #expect(response.status == 200, "entitlements answered \(response.status): \(response.bodyString)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        return try #require(object["entitlements"] as? [[String: Any]])
    }

    /// The active entitlements' identifiers.
    func activeEntitlements() async throws -> [String] {
        try await entitlements().filter { $0["is_active"] as? Bool == true }.compactMap { $0["identifier"] as? String }
    }

    func resume(code: String) async throws -> HTTPClientResponse {
        try await stack.request(.post, stack.gateway + "/api/subscription/resume", token: token, json: #"{"subscription_code":"\#(code)"}"#)
    }

    /// Drives the sandbox's provider-side lifecycle (`/_sandbox/<provider>/subscriptions/<id>/<action>`)
    /// and waits until its webhooks have gone out.
    func sandbox(_ action: String, subscription code: String, json: String? = nil) async throws {
        let response = try await stack.request(.post, stack.sandbox + "/_sandbox/\(provider)/subscriptions/\(code)/\(action)", json: json)
        #expect(response.status == 200, "sandbox \(action) answered \(response.status): \(response.bodyString)")
        _ = try await stack.request(.post, stack.sandbox + "/_sandbox/deliveries/settle")
    }

    /// A subscription variant of this flow's provider, from the product list
    /// (decoded with the seed's models first, to prove the contract).
    func subscriptionProduct() async throws -> (productID: String, variantID: String) {
        let response = try await stack.request(.get, stack.gateway + "/api/products")
        #expect(response.status == 200)
        let seed = try stack.decode(SeedLemonSqueezy.ProductResponse.self, response)
        #expect(seed.success && !seed.products.data.isEmpty)
        #expect(Set(seed.products.data.map(\.id)).count == seed.products.data.count, "ids are unique")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let items = try #require((list["products"] as? [String: Any])?["data"] as? [[String: Any]])
        let item = try #require(
            items.first { item in
                let attributes = item["attributes"] as? [String: Any]
                return attributes?["provider"] as? String == provider && !(attributes?["interval"] is NSNull) && attributes?["interval"] != nil
            }, "a \(provider) subscription product is listed")
        return (try #require(item["id"] as? String), try #require(item["variantId"] as? String))
    }

    /// A one-time variant of this flow's provider (no billing interval), from the product list.
    func oneTimeProduct() async throws -> (productID: String, variantID: String) {
        let response = try await stack.request(.get, stack.gateway + "/api/products")
        #expect(response.status == 200)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let items = try #require((list["products"] as? [String: Any])?["data"] as? [[String: Any]])
        let item = try #require(
            items.first { item in
                let attributes = item["attributes"] as? [String: Any]
                return attributes?["provider"] as? String == provider && (attributes?["interval"] == nil || attributes?["interval"] is NSNull)
            }, "a \(provider) one-time product is listed")
        return (try #require(item["id"] as? String), try #require(item["variantId"] as? String))
    }

    func createCheckout(productID: String, variantID: String) async throws -> String {
        let body = #"{"customerEmail":"\#(email)","variantId":"\#(variantID)","productId":"\#(productID)"}"#
        let response = try await stack.request(.post, stack.gateway + "/api/create-checkout", token: token, json: body)
        #expect(response.status == 200, "create-checkout answered \(response.status): \(response.bodyString)")
        let seed = try stack.decode(SeedLemonSqueezy.CheckoutResponse.self, response)
        #expect(seed.success)
        return seed.checkoutUrl
    }

    /// Presses Pay on the sandbox's hosted checkout page, as a browser would.
    func pay(checkoutURL: String) async throws {
        // The page's form posts to <page path>/pay (the page URL may carry a query).
        let page = checkoutURL.split(separator: "?", maxSplits: 1)[0]
        let response = try await stack.request(.post, page + "/pay", headers: [("Content-Type", "application/x-www-form-urlencoded")])
        #expect([200, 303].contains(response.status), "pay answered \(response.status)")
    }

    func status() async throws -> (seed: SeedPaystack.SubscriptionStatus, raw: [String: Any]) {
        let response = try await stack.request(.get, stack.gateway + "/api/subscription/status", token: token)
        #expect(response.status == 200, "status answered \(response.status): \(response.bodyString)")
        let seed = try stack.decode(SeedPaystack.SubscriptionStatus.self, response)
        let raw = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        return (seed, raw)
    }

    func waitUntil(
        _ what: String, timeout: Duration = .seconds(30),
        _ condition: @escaping (SeedPaystack.SubscriptionStatus, [String: Any]) -> Bool
    ) async throws -> (SeedPaystack.SubscriptionStatus, [String: Any]) {
        try await stack.eventually(timeout: timeout, what) {
            let (seed, raw) = try await status()
            return condition(seed, raw) ? (seed, raw) : nil
        }
    }

    func cancel(code: String, emailToken: String?) async throws -> HTTPClientResponse {
        let token = emailToken.map { #","email_token":"\#($0)""# } ?? ""
        return try await stack.request(
            .post, stack.gateway + "/api/subscription/cancel", token: self.token,
            json: #"{"subscription_code":"\#(code)"\#(token)}"#)
    }

    /// Buys a subscription and waits until the status endpoint shows it active.
    func buySubscription() async throws -> SeedPaystack.SubscriptionStatus {
        let product = try await subscriptionProduct()
        let url = try await createCheckout(productID: product.productID, variantID: product.variantID)
        try await pay(checkoutURL: url)
        let (active, _) = try await waitUntil("\(provider) subscription active") { seed, _ in seed.active }
        return active
    }
}
