import Timing
import ServiceSettings
import CryptoPrimitives
import Foundation
import BillingModel
import JSONCodec
import Webhooks

/// `webhook-cpu-bench [ITERATIONS]`: the receiver's per-delivery CPU work on
/// a 4 KB Lemon Squeezy body — verify the signature, read the body, encode
/// the envelope — against the same work done the old way in the same run
/// (three `JSONDecoder` parses and `JSONEncoder`), so the ratio is measured,
/// not remembered. Used by `make bench` and under `valgrind --tool=callgrind`
/// (`BENCH_ONLY=new|old` runs one side, for instruction counts).
@main
struct WebhookCPUBench {
    static func main() throws {
        let iterations = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 20_000
        let only = ProcessInfo.processInfo.environment["BENCH_ONLY"]
        let secret = "bench-webhook-secret"
        let body = Self.body()
        let signature = Hex.encode(HMAC.sha256(key: Array(secret.utf8), message: body))
        let verifier = LemonSqueezyWebhookVerifier(secret: Secret(secret))
        let headers = ["x-signature": signature, "x-event-name": "subscription_updated"]
        let received = Date(timeIntervalSince1970: 1_800_000_000)

        func new() throws -> Int {
            try verifier.verify(header: { headers[$0.lowercased()] }, body: body, remoteAddress: nil)
            let read = ProviderWebhooks.read(.lemonsqueezy, body: body, receivedAt: received)
            return read.envelope.encodedRecord().count + read.topicKey.utf8.count
        }
        func old() throws -> Int {
            try verifier.verify(header: { headers[$0.lowercased()] }, body: body, remoteAddress: nil)
            // What the receiver did before: the body decoded three times through Codable.
            let root = try JSONDecoder().decode(JSONValue.self, from: Data(body))
            let again = try JSONDecoder().decode(JSONValue.self, from: Data(body))
            let third = try JSONDecoder().decode(JSONValue.self, from: Data(body))
            let id = root["meta", "webhook_id"]?.string ?? ""
            let name = again["meta", "event_name"]?.string ?? ""
            let key = "lemonsqueezy:sub_\(third["data", "id"]?.string ?? "")"
            // ...and the envelope written by JSONEncoder, as its Codable conformance did.
            let fields = [
                "eventName": name, "id": "lemonsqueezy:\(id)", "payload": Data(body).base64EncodedString(), "payloadEncoding": "base64",
                "provider": "lemonsqueezy", "receivedAt": Timestamp.format(received),
            ]
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return try encoder.encode(fields).count + key.utf8.count
        }

        var results: [(String, Double)] = []
        for (name, work) in [("old", old), ("new", new)] where only == nil || only == name {
            var sink = 0
            for _ in 0..<min(iterations, 500) { sink &+= try work() } // warm-up
            let clock = ContinuousClock()
            let start = clock.now
            for _ in 0..<iterations { sink &+= try work() }
            let elapsed = clock.now - start
            let seconds = elapsed.inSeconds
            results.append((name, seconds / Double(iterations) * 1e6))
            if sink == 42 { print("") }
        }
        for (name, micros) in results {
            print("\(name): \(String(format: "%.1f", micros)) µs per delivery (\(String(format: "%.0f", 1e6 / micros)) per second on one core)")
        }
        if results.count == 2 { print("new/old time ratio: \(String(format: "%.3f", results[1].1 / results[0].1))") }
    }

    /// A subscription_updated body of about 4 KB, shaped like Lemon Squeezy's,
    /// with the custom data Storefront's checkout sends (its ownership proof
    /// included; the receiver passes it on unchecked, the projector checks it).
    static func body() -> [UInt8] {
        var text =
            #"{"meta":{"test_mode":true,"event_name":"subscription_updated","webhook_id":"7c1f3a52-9d0e-4b8a-a3f1-2e5d6c7b8a91","custom_data":{"storefront_user_id":"user-7f3a","storefront_checkout_id":"2d9c6a40-5b1e-4f7a-9c3d-8e2f1a0b4c6d","storefront_proof":"f9c75b297ee11239f6f0e2e894d79f7e4deb9304fc4debf57a68b758185cfe02"}},"data":{"type":"subscriptions","id":"880123","attributes":{"store_id":12345,"customer_id":6120345,"order_id":4451290,"order_item_id":4401220,"product_id":310456,"variant_id":472301,"product_name":"Storefront Pro","variant_name":"Monthly","user_name":"Ada Lovelace","user_email":"ada@example.com","status":"active","status_formatted":"Active","card_brand":"mastercard","card_last_four":"5454","pause":null,"cancelled":false,"trial_ends_at":null,"billing_anchor":3,"first_subscription_item":{"id":223344,"subscription_id":880123,"price_id":556677,"quantity":1,"is_usage_based":false,"created_at":"2025-03-03T09:15:40.000000Z","updated_at":"2025-04-03T09:20:11.000000Z"},"urls":{"update_payment_method":"https:\/\/storefront-demo.lemonsqueezy.com\/subscription\/880123\/payment-details?expires=1741079742&signature=8d3c","customer_portal":"https:\/\/storefront-demo.lemonsqueezy.com\/billing?expires=1741079742&user=3120456&signature=2f7a","customer_portal_update_subscription":"https:\/\/storefront-demo.lemonsqueezy.com\/billing\/880123\/update?expires=1741079742&signature=91bc"},"renews_at":"2025-05-03T09:15:38.000000Z","ends_at":null,"created_at":"2025-03-03T09:15:40.000000Z","updated_at":"2025-04-03T09:20:11.000000Z","test_mode":true},"relationships":{"#
        for name in ["store", "customer", "order", "order-item", "product", "variant", "subscription-items", "subscription-invoices"] {
            text +=
                #""\#(name)":{"links":{"related":"https:\/\/api.lemonsqueezy.com\/v1\/subscriptions\/880123\/\#(name)","self":"https:\/\/api.lemonsqueezy.com\/v1\/subscriptions\/880123\/relationships\/\#(name)"}},"#
        }
        text.removeLast()
        text += #"},"links":{"self":"https:\/\/api.lemonsqueezy.com\/v1\/subscriptions\/880123"}}}"#
        while text.utf8.count < 4096 { text.insert(" ", at: text.index(before: text.endIndex)) }
        return Array(text.utf8)
    }
}
