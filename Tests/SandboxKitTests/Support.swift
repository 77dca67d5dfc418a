import Foundation
import Synchronization
@testable import SandboxKit

/// A deterministic stand-in for HMAC (NOT cryptographic): FNV-1a over key and message,
/// so tests can recompute the expected header without a crypto library.
enum FakeHMAC {
    static func hex(_ tag: String, _ key: [UInt8], _ message: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key + [0] + message {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return tag + String(hash, radix: 16)
    }

    static let signer = SandboxSigner(
        hmacSHA256Hex: { hex("fake256-", $0, $1) },
        hmacSHA512Hex: { hex("fake512-", $0, $1) })
}

/// Records every webhook request; answers from a script of statuses, then 200.
final class RecordingTransport: WebhookTransport {
    struct Sent: Sendable {
        let url: String
        let headers: [(String, String)]
        let body: [UInt8]
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
        var json: JSONValue { JSONValue.parse(body) ?? .null }
        var lsEvent: String? { json["meta"]?["event_name"]?.stringValue }
        var psEvent: String? { json["event"]?.stringValue }
        var stripeEvent: String? { json["object"]?.stringValue == "event" ? json["type"]?.stringValue : nil }
    }

    private let state: Mutex<(sent: [Sent], script: [Int])>

    init(statuses: [Int] = []) { state = Mutex((sent: [], script: statuses)) }

    func post(url: String, headers: [(String, String)], body: [UInt8]) async throws -> Int {
        state.withLock { s in
            s.sent.append(Sent(url: url, headers: headers, body: body))
            return s.script.isEmpty ? 200 : s.script.removeFirst()
        }
    }

    var sent: [Sent] { state.withLock { $0.sent } }
}

/// A clock pinned to a settable instant; sleeping only yields, so retries run at once.
final class TestClock: Sendable {
    private let instant = Mutex(Date(timeIntervalSince1970: 1_750_000_000)) // 2025-06-15T15:06:40Z
    var now: Date { instant.withLock { $0 } }
    func advance(days: Int) { instant.withLock { $0 = $0.addingTimeInterval(Double(days) * 86_400) } }
    var sandboxClock: SandboxClock {
        SandboxClock(now: { self.now }, sleep: { _ in await Task.yield() })
    }
}

struct Harness {
    let app: SandboxApp
    let transport: RecordingTransport
    let clock: TestClock
    let config: SandboxConfiguration

    static let lsKey = "ls_test_key_123"
    static let psKey = "sk_test_abc"
    static let stripeKey = "sk_test_stripe_123"
    static let stripeWebhookSecret = "whsec_stripe_test"

    init(statuses: [Int] = [], rateLimit: RateLimitSettings? = nil) {
        var config = SandboxConfiguration(
            publicBaseURL: "http://127.0.0.1:8090/",
            lemonSqueezy: LemonSqueezySettings(
                apiKey: Self.lsKey, webhookSecret: "whsec_ls", webhookURL: "http://receiver/api/webhooks/lemonsqueezy"),
            paystack: PaystackSettings(secretKey: Self.psKey, webhookURL: "http://receiver/api/webhooks/paystack"),
            stripe: StripeSettings(
                secretKey: Self.stripeKey, webhookSecret: Self.stripeWebhookSecret, webhookURL: "http://receiver/api/webhooks/stripe"),
            rateLimit: rateLimit)
        config.retryTimeScale = 0.0001
        self.config = config
        transport = RecordingTransport(statuses: statuses)
        clock = TestClock()
        app = SandboxApp(configuration: config, signer: FakeHMAC.signer, transport: transport, clock: clock.sandboxClock)
    }

    func ls(_ method: String, _ target: String, body: JSONValue? = nil, key: String? = Harness.lsKey) async -> SandboxResponse {
        var headers = SandboxHeaders([("Accept", "application/vnd.api+json"), ("Content-Type", "application/vnd.api+json")])
        if let key { headers.add("authorization", "Bearer \(key)") }
        return await app.handle(
            SandboxRequest(method: method, target: "/lemonsqueezy/v1" + target, headers: headers, body: body.map { JSONWriter.encode($0) } ?? []))
    }

    func ps(_ method: String, _ target: String, body: JSONValue? = nil, key: String? = Harness.psKey) async -> SandboxResponse {
        var headers = SandboxHeaders([("Content-Type", "application/json")])
        if let key { headers.add("Authorization", "Bearer \(key)") }
        return await app.handle(
            SandboxRequest(method: method, target: "/paystack" + target, headers: headers, body: body.map { JSONWriter.encode($0) } ?? []))
    }

    /// A Stripe API request with a form body (`[("line_items[0][price]", "price_…"), …]`).
    func stripe(
        _ method: String, _ target: String, form: [(String, String)] = [], key: String? = Harness.stripeKey, idempotencyKey: String? = nil
    ) async -> SandboxResponse {
        var headers = SandboxHeaders([("Content-Type", "application/x-www-form-urlencoded")])
        if let key { headers.add("Authorization", "Bearer \(key)") }
        if let idempotencyKey { headers.add("Idempotency-Key", idempotencyKey) }
        return await app.handle(
            SandboxRequest(method: method, target: "/stripe/v1" + target, headers: headers, body: Array(FormDecoding.encode(form).utf8)))
    }

    /// Creates a Checkout Session for `price` with Storefront's metadata; returns its id.
    func stripeSession(price: String = "price_SbxPremiumMonthly", mode: String = "subscription", extra: [(String, String)] = []) async -> String? {
        let metadataKey =
            mode == "subscription" ? "subscription_data[metadata][storefront_user_id]" : "payment_intent_data[metadata][storefront_user_id]"
        let r = await stripe(
            "POST", "/checkout/sessions",
            form: [
                ("mode", mode), ("line_items[0][price]", price), ("line_items[0][quantity]", "1"),
                ("success_url", "https://app.example/done?s={CHECKOUT_SESSION_ID}"),
                ("cancel_url", "https://app.example/cancel"), ("client_reference_id", "user-1"), ("customer_email", "ada@example.com"),
                ("metadata[storefront_user_id]", "user-1"), ("metadata[storefront_checkout_id]", "chk-1"), (metadataKey, "user-1"),
            ] + extra)
        return r.json?["id"]?.stringValue
    }

    /// Buys the monthly Premium price through Checkout; returns the subscription id.
    func stripeSubscribe(trialDays: Int? = nil) async -> String? {
        guard let id = await stripeSession() else { return nil }
        let paid = await control("POST", "/checkouts/stripe/\(id)/pay", body: trialDays.map { ["trial_days": .int($0)] })
        await app.settleDeliveries()
        return paid.json?["subscription_id"]?.stringValue
    }

    func control(_ method: String, _ target: String, body: JSONValue? = nil) async -> SandboxResponse {
        await app.handle(SandboxRequest(method: method, target: "/_sandbox" + target, body: body.map { JSONWriter.encode($0) } ?? []))
    }

    /// Creates a Lemon Squeezy checkout for `variant` and returns its id.
    func lsCheckout(variant: Int, custom: JSONValue = ["user_id": "42"], redirect: String = "") async -> String? {
        let r = await ls(
            "POST", "/checkouts",
            body: [
                "data": [
                    "type": "checkouts",
                    "attributes": [
                        "checkout_data": ["email": "buyer@example.com", "custom": custom], "product_options": ["redirect_url": .string(redirect)],
                        "test_mode": true,
                    ],
                    "relationships": [
                        "store": ["data": ["type": "stores", "id": "1"]], "variant": ["data": ["type": "variants", "id": .string(String(variant))]],
                    ],
                ]
            ])
        return r.json?["data"]?["id"]?.stringValue
    }

    /// Buys subscription variant 2 (Premium monthly) and returns the subscription id.
    func lsSubscribe() async -> Int? {
        guard let id = await lsCheckout(variant: 2) else { return nil }
        let paid = await control("POST", "/checkouts/lemonsqueezy/\(id)/pay")
        await app.settleDeliveries()
        return paid.json?["subscription_id"]?.intValue
    }

    /// Initializes and pays a Paystack plan transaction; returns (reference, subscription code).
    func psSubscribe(
        plan: String = "PLN_sbxpremmonth01", email: String = "payer@example.com", metadata: JSONValue = "{\"user_id\":\"42\"}"
    ) async -> (String, String)? {
        let r = await ps(
            "POST", "/transaction/initialize",
            body: [
                "email": .string(email), "amount": "1000", "plan": .string(plan), "metadata": metadata, "callback_url": "https://app.example/done",
            ])
        guard let access = r.json?["data"]?["access_code"]?.stringValue else { return nil }
        let paid = await control("POST", "/checkouts/paystack/\(access)/pay")
        await app.settleDeliveries()
        guard let ref = paid.json?["reference"]?.stringValue, let code = paid.json?["subscription_code"]?.stringValue else { return nil }
        return (ref, code)
    }

    /// How many webhooks were delivered once everything queued so far settled.
    func mark() async -> Int {
        await app.settleDeliveries()
        return transport.sent.count
    }

    /// The webhooks delivered since the first `count`, as parsed bodies.
    func delivered(after count: Int) async -> [RecordingTransport.Sent] {
        await app.settleDeliveries()
        return Array(transport.sent.dropFirst(count))
    }
}
