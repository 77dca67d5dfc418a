import BillingModel
import Foundation
import HTTPClient
import HTTPServer
import Telemetry
import Testing
@testable import WebhookReceiverService
import WebhookReceiverTestSupport
import Webhooks

/// The webhook route as the server runs it (a deferred route: started on the
/// HTTP thread, answered from the publisher's callback), over a socket, with
/// the fake publisher answering from another thread as the producer's poll
/// thread does. No broker.
@Suite("Webhook route over a socket")
struct WebhookDeferredRouteTests {
    /// A started receiver on an ephemeral loopback port, its log lines and metrics.
    struct Served {
        let app: WebhookReceiverApplication
        let sink: CapturingLogSink
        let metrics: MetricsRegistry
        let baseURL: String
        let client = HTTPClient(configuration: HTTPClientConfiguration(timeout: .seconds(20), retryPolicy: .none))

        func post(_ provider: String, body: [UInt8], headers: [(String, String)]) async throws -> HTTPClientResponse {
            try await client.post(baseURL + "/api/webhooks/\(provider)", headers: HTTPHeaders(headers), body: body)
        }
    }

    static func serve(
        _ publisher: FakeWebhookPublisher, configuration: WebhookReceiverConfiguration = WebhookReceiverConfiguration(),
        _ body: (Served) async throws -> Void
    ) async throws {
        var http = HTTPServerConfiguration()
        http.bindAddress = "127.0.0.1"
        http.port = 0
        let sink = CapturingLogSink(), metrics = MetricsRegistry()
        let app = try buildWebhookReceiverApplication(
            verifiers: TestSecrets.bothVerifiers, publisher: publisher, configuration: configuration, http: http,
            logger: Logger(service: "webhook-receiver", minimumLevel: .info, sink: sink), metrics: metrics)
        let port = try app.server.start()
        do {
            try await body(Served(app: app, sink: sink, metrics: metrics, baseURL: "http://127.0.0.1:\(port)"))
        } catch {
            await app.server.shutdown()
            throw error
        }
        await app.server.shutdown()
    }

    @Test("a published webhook is 200 with one access line carrying its fields; refusals are answered at once")
    func publishedAndRefused() async throws {
        let publisher = FakeWebhookPublisher(answersLater: true)
        try await Self.serve(publisher, configuration: WebhookReceiverConfiguration(maxBodyBytes: 64 * 1024)) { served in
            let (body, _) = try Bodies.lemonSqueezy()
            let webhookID = ProviderWebhooks.read(.lemonsqueezy, body: body, receivedAt: .distantPast).envelope.id
            let accepted = try await served.post(
                "lemonsqueezy", body: body, headers: Signer.headers(.lemonsqueezy, body) + [("X-Request-Id", "wh-1")])
            #expect(accepted.status == 200 && accepted.bodyString == #"{"success":true}"#)
            #expect(publisher.published.map(\.envelope.id) == [webhookID])
            let lines = served.sink.lines.filter { $0.contains(#""request_id":"wh-1""#) }
            #expect(lines.count == 1, "one line per webhook: \(lines)")
            let access = try #require(lines.first)
            #expect(access.contains(#""message":"request""#) && access.contains(#""http.status":"200""#))
            #expect(access.contains(#""webhook.dedup_key":"\#(webhookID)""#) && access.contains(#""kafka.offset":"0""#), "\(access)")
            #expect(access.contains(#""webhook.provider":"lemonsqueezy""#) && access.contains(#""http.route":"/api/webhooks/{provider}""#))

            let forged = try await served.post("lemonsqueezy", body: body, headers: [("X-Signature", Signer.lemonSqueezy(body, secret: "wrong"))])
            #expect(forged.status == 401)
            #expect(try await served.post("stripe", body: body, headers: []).status == 404)
            let huge = Array(repeating: UInt8(ascii: "a"), count: 64 * 1024 + 1)
            #expect(try await served.post("lemonsqueezy", body: huge, headers: Signer.headers(.lemonsqueezy, huge)).status == 413)
            #expect(publisher.published.count == 1, "nothing refused was published")

            #expect(WebhookRoutesTests.counter(served.metrics, .lemonsqueezy, .published) == 1)
            #expect(WebhookRoutesTests.counter(served.metrics, .lemonsqueezy, .invalidSignature) == 1)
            #expect(WebhookRoutesTests.counter(served.metrics, .lemonsqueezy, .tooLarge) == 1)
            #expect(served.metrics.renderPrometheus().contains("http_requests_in_flight 0"))
        }
    }

    @Test("a publish failing on the publisher's thread is 503 with Retry-After, counted and logged")
    func failedPublishIs503() async throws {
        try await Self.serve(FakeWebhookPublisher(failing: .failed("queue full"), answersLater: true)) { served in
            let (body, _) = try Bodies.paystack()
            let response = try await served.post("paystack", body: body, headers: Signer.headers(.paystack, body))
            #expect(response.status == 503)
            #expect(response.headers["Retry-After"] == String(WebhookReceiverConfiguration().retryAfterSeconds))
            #expect(WebhookRoutesTests.counter(served.metrics, .paystack, .publishFailed) == 1)
            #expect(served.sink.lines.contains { $0.contains("webhook not stored") && $0.contains("queue full") })
        }
    }
}
