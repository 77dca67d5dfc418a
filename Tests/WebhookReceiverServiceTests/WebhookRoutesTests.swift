import ServiceSettings
import Foundation
import HTTPServer
import Kafka
import BillingModel
import ServiceRuntime
import Telemetry
import Testing
@testable import WebhookReceiverService
import WebhookReceiverTestSupport
import Webhooks

/// Through the router, with no socket and no broker (a fake publisher);
/// `WebhookLiveTests` runs the same paths against a real broker.
@Suite("Webhook routes")
struct WebhookRoutesTests {
    static func request(_ provider: String, body: [UInt8], headers: [(String, String)], remoteAddress: String = "127.0.0.1") throws -> HTTPRequest {
        try HTTPRequest(method: .post, target: "/api/webhooks/\(provider)", headers: HTTPHeaders(headers), body: body, remoteAddress: remoteAddress)
    }

    static func counter(_ metrics: MetricsRegistry, _ provider: Provider, _ result: WebhookResult) -> Int {
        metrics.counter("webhooks_received_total", help: "", labels: ["provider": provider.rawValue, "result": result.rawValue]).current
    }

    @Test("bad, missing and cross-provider signatures are 401 with the contract's body")
    func refusesUnsignedRequests() async throws {
        let metrics = MetricsRegistry()
        let publisher = FakeWebhookPublisher()
        let app = try makeRouterApplication(publisher: publisher, metrics: metrics)
        let (lsBody, _) = try Bodies.lemonSqueezy()
        let (psBody, _) = try Bodies.paystack()
        let cases: [(String, [UInt8], [(String, String)])] = [
            ("lemonsqueezy", lsBody, [("X-Signature", Signer.lemonSqueezy(lsBody, secret: "wrong-secret"))]),
            ("lemonsqueezy", lsBody, []),
            ("lemonsqueezy", lsBody, [("X-Signature", "")]),
            ("lemonsqueezy", lsBody, [("x-paystack-signature", Signer.paystack(lsBody))]),
            ("paystack", psBody, [("x-paystack-signature", Signer.paystack(psBody, key: "sk_test_other"))]),
            ("paystack", psBody, []),
            ("paystack", psBody, [("X-Signature", Signer.lemonSqueezy(psBody))]),
            // A signature over other bytes: the body was changed in transit.
            ("paystack", psBody + [0x20], [("x-paystack-signature", Signer.paystack(psBody))]),
        ]
        for (provider, body, headers) in cases {
            let response = await app.respond(to: try Self.request(provider, body: body, headers: headers), logger: quietLogger)
            #expect(response.status.code == 401, "\(provider) \(headers.map(\.0))")
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"success":false,"error":"Invalid signature","code":"invalid_signature"}"#)
        }
        #expect(Self.counter(metrics, .lemonsqueezy, .invalidSignature) == 4)
        #expect(Self.counter(metrics, .paystack, .invalidSignature) == 4)
        #expect(Self.counter(metrics, .paystack, .published) == 0)
        #expect(publisher.published.isEmpty)
    }

    @Test("a provider that is not enabled, or unknown, is 404")
    func unknownProviders() async throws {
        let app = try makeRouterApplication(verifiers: [TestSecrets.lemonSqueezyVerifier])
        let (body, _) = try Bodies.paystack()
        for provider in ["paystack", "stripe", "LEMONSQUEEZY"] {
            let response = await app.respond(
                to: try Self.request(provider, body: body, headers: Signer.headers(.paystack, body)), logger: quietLogger)
            #expect(response.status.code == 404, "\(provider)")
            #expect(String(decoding: response.body, as: UTF8.self).hasPrefix(#"{"success":false,"error":"#))
        }
        let get = await app.respond(to: try HTTPRequest(method: .get, target: "/api/webhooks/lemonsqueezy"), logger: quietLogger)
        #expect(get.status.code == 405)
    }

    @Test("a body over the limit is 413 and counted, even through the router")
    func oversizeThroughTheRouter() async throws {
        let metrics = MetricsRegistry()
        let app = try makeRouterApplication(configuration: WebhookReceiverConfiguration(maxBodyBytes: 2048), metrics: metrics)
        let body = Array(repeating: UInt8(ascii: "a"), count: 2049)
        let response = await app.respond(
            to: try Self.request("lemonsqueezy", body: body, headers: Signer.headers(.lemonsqueezy, body)), logger: quietLogger)
        #expect(response.status.code == 413)
        #expect(Self.counter(metrics, .lemonsqueezy, .tooLarge) == 1)
    }

    @Test("the Paystack allow-list uses the peer, or the last X-Forwarded-For hop only when trusted")
    func allowListAndForwardedFor() async throws {
        let publisher = FakeWebhookPublisher()
        let allowList = try IPAllowList(["52.31.139.75"])
        let verifier = PaystackWebhookVerifier(secretKey: Secret(TestSecrets.paystackKey), allowList: allowList)
        let untrusting = try makeRouterApplication(verifiers: [verifier], publisher: publisher)
        let trusting = try makeRouterApplication(
            verifiers: [verifier], publisher: publisher,
            configuration: WebhookReceiverConfiguration(trustForwardedFor: true))

        let (body, _) = try Bodies.paystack()
        let id = ProviderWebhooks.read(.paystack, body: body, receivedAt: .distantPast).envelope.id
        let forwarded = Signer.headers(.paystack, body) + [("X-Forwarded-For", "10.9.8.7, 52.31.139.75")]
        let spoofed = Signer.headers(.paystack, body) + [("X-Forwarded-For", "52.31.139.75, 10.0.0.1")]

        // Not trusted: the header is ignored and the peer (gateway) is not on the list.
        let refused = await untrusting.respond(
            to: try Self.request("paystack", body: body, headers: forwarded, remoteAddress: "10.0.0.1"), logger: quietLogger)
        #expect(refused.status.code == 401)
        // Trusted, but the client put the allowed address first: only the last hop counts.
        let spoof = await trusting.respond(
            to: try Self.request("paystack", body: body, headers: spoofed, remoteAddress: "10.0.0.1"), logger: quietLogger)
        #expect(spoof.status.code == 401)
        // Trusted, last hop allowed: accepted and published.
        let accepted = await trusting.respond(
            to: try Self.request("paystack", body: body, headers: forwarded, remoteAddress: "10.0.0.1"), logger: quietLogger)
        #expect(accepted.status.code == 200)
        #expect(String(decoding: accepted.body, as: UTF8.self) == #"{"success":true}"#)
        // Direct from an allowed peer, no header needed.
        let direct = await untrusting.respond(
            to: try Self.request("paystack", body: body, headers: Signer.headers(.paystack, body), remoteAddress: "52.31.139.75"), logger: quietLogger
        )
        #expect(direct.status.code == 200)

        // The two accepted deliveries, and only they, were published, whole.
        #expect(publisher.published.count == 2)
        #expect(publisher.published.allSatisfy { $0.envelope.id == id && $0.envelope.payload.bytes == body })
    }

    @Test("a publish that fails is 503 with Retry-After and counted, so the provider retries")
    func publishFailureIs503() async throws {
        let metrics = MetricsRegistry()
        let app = try makeRouterApplication(
            publisher: FakeWebhookPublisher(failing: .timedOut(.seconds(5))),
            configuration: WebhookReceiverConfiguration(), metrics: metrics)
        let (body, _) = try Bodies.lemonSqueezy()
        let response = await app.respond(
            to: try Self.request("lemonsqueezy", body: body, headers: Signer.headers(.lemonsqueezy, body)), logger: quietLogger)
        #expect(response.status.code == 503)
        #expect(response.headers["Retry-After"] == String(WebhookReceiverConfiguration().retryAfterSeconds))
        #expect(String(decoding: response.body, as: UTF8.self).hasPrefix(#"{"success":false,"error":"#))
        #expect(Self.counter(metrics, .lemonsqueezy, .publishFailed) == 1)
        #expect(Self.counter(metrics, .lemonsqueezy, .published) == 0)
    }

    @Test("a published webhook logs one line: its fields ride on the server's access line")
    func onePublishedLinePerWebhook() async throws {
        let publisher = FakeWebhookPublisher()
        let app = try makeRouterApplication(publisher: publisher)
        let (body, _) = try Bodies.lemonSqueezy()
        let sink = CapturingLogSink()
        let response = await app.respond(
            to: try Self.request("lemonsqueezy", body: body, headers: Signer.headers(.lemonsqueezy, body)),
            logger: Logger(service: "webhook-receiver", minimumLevel: .info, sink: sink))
        #expect(response.status.code == 200)
        #expect(sink.lines.isEmpty, "the route writes no line of its own; the server writes the access line")
        let envelope = try #require(publisher.published.first?.envelope)
        #expect(response.accessLogMetadata["webhook.dedup_key"] == envelope.id)
        #expect(response.accessLogMetadata["webhook.event"] == envelope.eventName)
        #expect(response.accessLogMetadata["webhook.provider"] == "lemonsqueezy")
        #expect(response.accessLogMetadata["kafka.partition"] == "0" && response.accessLogMetadata["kafka.offset"] == "0")
        #expect(response.accessLogMetadata["kafka.key"] == publisher.published.first?.key)
    }

    @Test("set-up refuses no verifiers and duplicate providers")
    func setupErrors() throws {
        #expect(throws: WebhookReceiverSetupError.self) { try makeRouterApplication(verifiers: []) }
        #expect(throws: WebhookReceiverSetupError.self) {
            try makeRouterApplication(verifiers: [TestSecrets.paystackVerifier, TestSecrets.paystackVerifier])
        }
        #expect(webhookProvider(inPath: "/api/webhooks/paystack") == .paystack)
        #expect(webhookProvider(inPath: "/api/webhooks/paystack/") == .paystack)
        #expect(webhookProvider(inPath: "/api/other/paystack") == nil)
    }
}
