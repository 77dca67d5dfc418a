import Foundation
import HTTPClient

/// The provider sandbox's control API (`/_sandbox/…`), as the provider phase
/// of `make chaos` uses it: buy a subscription (the sandbox then signs and
/// delivers its webhooks on the provider's own retry schedule, and lists it
/// in its APIs for the reconciler's sweep) and cancel one.
struct SandboxControl: Sendable {
    enum Provider: String, Sendable, CaseIterable {
        case lemonSqueezy = "lemonsqueezy"
        case paystack
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    let baseURL: String
    let client: HTTPClient

    init(baseURL: String) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        client = HTTPClient(configuration: HTTPClientConfiguration(timeout: .seconds(30), retryPolicy: .none))
    }

    /// One paid subscription bought by a new customer, with its webhooks
    /// (`POST /_sandbox/{provider}/seed`, the same purchase code as a paid checkout).
    /// - Returns: the subscription's id (Lemon Squeezy) or code (Paystack) and its status.
    func purchase(_ provider: Provider) async throws -> (id: String, status: String) {
        let answer = try await post("/_sandbox/\(provider.rawValue)/seed", ["subscriptions": 1, "webhooks": true])
        guard let id = answer["first"] as? String, !id.isEmpty else {
            throw Failure(description: "seed \(provider.rawValue) answered without a subscription id: \(answer)")
        }
        return (id, "active")
    }

    /// Cancels a subscription at the provider (`POST /_sandbox/{provider}/subscriptions/{id}/cancel`).
    /// - Returns: its status afterwards, as the sandbox reports it.
    func cancel(_ provider: Provider, id: String) async throws -> String {
        try await change(provider, id: id, action: "cancel")
    }

    /// Applies a lifecycle action (`cancel`, `resume`, …) to a subscription at the provider.
    /// - Returns: its status afterwards, as the sandbox reports it.
    func change(_ provider: Provider, id: String, action: String) async throws -> String {
        let answer = try await post("/_sandbox/\(provider.rawValue)/subscriptions/\(id)/\(action)", [:])
        let subscription = answer["subscription"] as? [String: Any]
        // Lemon Squeezy answers a JSON:API resource, Paystack the plain object.
        let attributes = subscription?["attributes"] as? [String: Any]
        guard let status = (attributes?["status"] ?? subscription?["status"]) as? String else {
            throw Failure(description: "\(action) \(provider.rawValue) \(id) answered without a status: \(answer)")
        }
        return status
    }

    private func post(_ path: String, _ body: [String: Any]) async throws -> [String: Any] {
        let bytes = Array(try JSONSerialization.data(withJSONObject: body))
        let response = try await client.post(baseURL + path, headers: ["Content-Type": "application/json"], body: bytes)
        guard response.isSuccess else {
            throw Failure(description: "POST \(path) answered \(response.status): \(response.bodyString.prefix(300))")
        }
        guard let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else {
            throw Failure(description: "POST \(path) answered something other than a JSON object")
        }
        return object
    }
}

extension SandboxControl {
    /// `count` Lemon Squeezy purchases at once, with their webhooks.
    /// - Returns: the first and last subscription id (consecutive) and how many webhooks are queued.
    func seedBatch(_ count: Int) async throws -> (first: Int, last: Int, webhooks: Int) {
        let answer = try await post("/_sandbox/lemonsqueezy/seed", ["subscriptions": count, "webhooks": true])
        guard let first = (answer["first"] as? String).flatMap(Int.init), let last = (answer["last"] as? String).flatMap(Int.init),
            let webhooks = answer["webhooks"] as? Int, first <= last
        else {
            throw Failure(description: "seed answered \(answer)")
        }
        return (first, last, webhooks)
    }

    /// The sandbox's delivery log summed up: attempts per provider and outcome
    /// (`delivered`, `retrying`, `failed`: the provider gave up).
    func deliveryOutcomes() async throws -> String {
        let response = try await client.get(baseURL + "/_sandbox/deliveries")
        guard response.isSuccess, let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let attempts = object["deliveries"] as? [[String: Any]]
        else { throw Failure(description: "GET /_sandbox/deliveries answered \(response.status)") }
        var counts: [String: Int] = [:]
        for attempt in attempts {
            counts["\(attempt["provider"] as? String ?? "?") \(attempt["outcome"] as? String ?? "?")", default: 0] += 1
        }
        return counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
    }

    /// How many Lemon Squeezy deliveries the sandbox's log holds as delivered (answered 2xx).
    func deliveredCount() async throws -> Int {
        let response = try await client.get(baseURL + "/_sandbox/deliveries?provider=lemonsqueezy")
        guard response.isSuccess, let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let attempts = object["deliveries"] as? [[String: Any]]
        else { throw Failure(description: "GET /_sandbox/deliveries answered \(response.status)") }
        return attempts.filter { $0["outcome"] as? String == "delivered" }.count
    }
}

extension SandboxControl {
    /// One delivery the sandbox held back (dropped by a fault), as it would have sent it.
    struct HeldDelivery: Sendable {
        let event: String
        let headers: HTTPHeaders
        let body: [UInt8]
    }

    /// Replaces every delivery and API fault (`POST /_sandbox/faults`); `[:]` clears them.
    func setFaults(_ faults: [String: Any]) async throws { _ = try await post("/_sandbox/faults", faults) }

    /// Pays a checkout without a browser; returns the subscription's id
    /// (Lemon Squeezy) or code (Paystack).
    func pay(_ provider: Provider, checkoutID: String) async throws -> String {
        let answer = try await post("/_sandbox/checkouts/\(provider.rawValue)/\(checkoutID)/pay", [:])
        switch provider {
        case .lemonSqueezy:
            if let id = answer["subscription_id"] as? Int { return String(id) }
        case .paystack:
            if let code = answer["subscription_code"] as? String, !code.isEmpty { return code }
        }
        throw Failure(description: "pay answered \(answer)")
    }

    /// The Lemon Squeezy deliveries the log holds as dropped, oldest first, with their signed headers and bodies.
    func droppedDeliveries() async throws -> [HeldDelivery] {
        let response = try await client.get(baseURL + "/_sandbox/deliveries?provider=lemonsqueezy")
        guard response.isSuccess, let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let attempts = object["deliveries"] as? [[String: Any]]
        else { throw Failure(description: "GET /_sandbox/deliveries answered \(response.status)") }
        return attempts.filter { $0["outcome"] as? String == "dropped" }.map { attempt in
            let fields = (attempt["headers"] as? [String: String] ?? [:]).sorted { $0.key < $1.key }
            return HeldDelivery(
                event: attempt["event"] as? String ?? "?", headers: HTTPHeaders(fields.map { ($0.key, $0.value) }),
                body: Array((attempt["body"] as? String ?? "").utf8))
        }
    }
}
