import CryptoPrimitives
import Foundation
import HTTPClient

/// What the chaos faults ask of Storefront's own API, through the gateway,
/// as an app would: the catalog, checkouts and subscription changes, each
/// with an app token for its user (HS256 with the stack's secret, as
/// `storefront dev-token` makes it), retrying a 503 after its `Retry-After`.
struct StorefrontAPI: Sendable {
    let client: HTTPClient
    let stack: StackEnvironment

    struct Failure: Error, CustomStringConvertible { let description: String }

    var gateway: String { stack["GATEWAY_URL"] ?? "" }

    /// The first subscription product of `provider` in the catalog: (product id, variant id).
    func subscriptionProduct(_ provider: SandboxControl.Provider) async throws -> (product: String, variant: String) {
        let response = try await client.get(gateway + "/api/products")
        let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        let products = ((object?["products"] as? [String: Any])?["data"] as? [[String: Any]]) ?? []
        for product in products {
            let attributes = product["attributes"] as? [String: Any] ?? [:]
            guard attributes["provider"] as? String == provider.rawValue, attributes["interval"] is String,
                let id = product["id"] as? String, let variant = product["variantId"] as? String
            else { continue }
            return (id, variant)
        }
        throw Failure(description: "GET /api/products (\(response.status)) lists no \(provider.rawValue) subscription")
    }

    /// Opens a checkout as `user`; returns the provider's checkout id (the last part of its URL).
    func createCheckout(user: String, email: String, product: String, variant: String) async throws -> String {
        let body = Array(try JSONSerialization.data(withJSONObject: ["customerEmail": email, "variantId": variant, "productId": product]))
        let response = try await postRetrying("/api/create-checkout", user: user, email: email, body: body)
        let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        guard response.isSuccess, let url = object?["checkoutUrl"] as? String,
            let id = url.split(separator: "?").first?.split(separator: "/").last
        else {
            throw Failure(description: "create-checkout for \(user) answered \(response.status): \(response.bodyString.prefix(300))")
        }
        return String(id)
    }

    /// `POST /api/subscription/cancel` or `/resume` as the owner; returns the
    /// status the provider answered with (the checkout's `status`).
    func change(_ action: String, subscription: String, user: String, email: String) async throws -> String {
        let body = Array(try JSONSerialization.data(withJSONObject: ["subscription_code": subscription]))
        let response = try await postRetrying("/api/subscription/\(action)", user: user, email: email, body: body)
        let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        guard response.isSuccess, let status = object?["status"] as? String else {
            throw Failure(description: "\(action) of \(subscription) as \(user) answered \(response.status): \(response.bodyString.prefix(300))")
        }
        return status
    }

    /// Posts as an app does: a 503 with `Retry-After` (the checkout could not
    /// record the request, e.g. its producer met a broker that lost its state)
    /// is tried again after the delay it asks, up to ``attempts`` times in all.
    private func postRetrying(_ path: String, user: String, email: String, body: [UInt8]) async throws -> HTTPClientResponse {
        var attempt = 1
        while true {
            let response = try await client.post(gateway + path, headers: try headers(user: user, email: email), body: body)
            guard response.status == 503, attempt < Self.attempts,
                let delay = response.headers["Retry-After"].flatMap(Int.init), (0...30).contains(delay)
            else { return response }
            try await Task.sleep(for: .seconds(delay))
            attempt += 1
        }
    }

    /// How many times a request answered 503 with `Retry-After` is sent in all.
    static let attempts = 3

    private func headers(user: String, email: String) throws -> HTTPHeaders {
        ["Content-Type": "application/json", "Authorization": "Bearer \(try appToken(user: user, email: email))"]
    }

    /// An app token for `user` with a verified `email`.
    func appToken(user: String, email: String) throws -> String {
        let issued = Int(Date().timeIntervalSince1970)
        let claims: [String: JOSEValue] = [
            "sub": .string(user), "email": .string(email), "email_verified": .bool(true), "iat": .int(issued), "exp": .int(issued + 3600),
            "iss": .string(stack["AUTH_JWT_ISSUER"] ?? "storefront-dev"), "aud": .string(stack["AUTH_JWT_AUDIENCE"] ?? "storefront-app"),
        ]
        return try JWTSigner(hs256Secret: Array((stack["AUTH_JWT_SECRET"] ?? "").utf8)).sign(claims)
    }
}
