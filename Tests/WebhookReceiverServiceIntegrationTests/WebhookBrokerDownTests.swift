import Foundation
import HTTPClient
import BillingModel
import TestSupport
import Testing
import WebhookReceiverService
import WebhookReceiverTestSupport

/// Stops a broker on purpose, so it uses a PRIVATE Tansu, never the shared one.
@Suite("Webhook receiver with the broker down")
struct WebhookBrokerDownTests {
    @Test("the broker going away turns webhooks into 503 with Retry-After within the publish timeout")
    func brokerDownIs503() async throws {
        let scripts = try TestEnvironment.scriptsFolder()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent(uniqueName("receiver-tansu"))
        try await ScriptRunner.run("\(scripts)/tansu.sh", ["start", state.path])
        // The test stops the broker itself; stopping again is harmless should it fail early.
        let outcome: Result<Void, any Error>
        do { outcome = .success(try await exercise(scripts: scripts, state: state)) } catch { outcome = .failure(error) }
        try? await ScriptRunner.run("\(scripts)/tansu.sh", ["stop", state.path])
        try? FileManager.default.removeItem(at: state)
        try outcome.get()
    }

    private func exercise(scripts: String, state: URL) async throws {
        let broker = try TestEnvironment.setting("KAFKA_BROKERS", inEnvFile: state.appendingPathComponent("kafka.env").path)
        let publishTimeout = Duration.seconds(2)
        let receiver = try await LiveReceiver.start(
            brokers: [broker], configuration: WebhookReceiverConfiguration(publishTimeout: publishTimeout, readinessCacheDuration: .milliseconds(200))
        )

        // Up: topics created by the receiver itself, a delivery stored.
        #expect(await eventually(timeout: .seconds(20)) { receiver.app.topicSetup?.isDone == true }, "topic set-up should succeed")
        let (before, _) = try Bodies.lemonSqueezy()
        #expect(try await receiver.signedPost(.lemonsqueezy, body: before).status == 200)
        #expect(await eventually { (try? await receiver.client.get(receiver.baseURL + "/readyz").status) == 200 })

        try await ScriptRunner.run("\(scripts)/tansu.sh", ["stop", state.path])

        let (after, _) = try Bodies.paystack()
        let clock = ContinuousClock()
        let started = clock.now
        let response = try await receiver.signedPost(.paystack, body: after)
        let elapsed = clock.now - started
        #expect(response.status == 503)
        #expect(response.bodyString == #"{"success":false,"error":"Webhook could not be stored, retry later","code":"unavailable"}"#)
        #expect(response.headers["Retry-After"] == "5")
        // Bounded by the publish timeout (plus margin for a loaded machine), never librdkafka's minutes.
        #expect(elapsed < publishTimeout + .seconds(4), "answered after \(elapsed)")

        #expect(
            await eventually(timeout: .seconds(10)) { (try? await receiver.client.get(receiver.baseURL + "/readyz").status) == 503 },
            "/readyz should report the broker down")
        let metrics = try await receiver.metricsText()
        #expect(metrics.contains(#"webhooks_received_total{provider="paystack",result="publish_failed"} 1"#))
        #expect(metrics.contains(#"webhooks_received_total{provider="lemonsqueezy",result="published"} 1"#))
        try await receiver.stop()
    }
}
