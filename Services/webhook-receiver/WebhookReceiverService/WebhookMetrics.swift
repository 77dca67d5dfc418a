import BillingModel
import Telemetry

/// What happened to one webhook request (the `result` label).
public enum WebhookResult: String, Sendable, CaseIterable {
    /// Verified and acknowledged by the broker (answered 200).
    case published
    /// Signature missing or wrong, or source address not allowed (answered 401).
    case invalidSignature = "invalid_signature"
    /// Body over the limit (answered 413).
    case tooLarge = "too_large"
    /// The broker did not acknowledge in time (answered 503).
    case publishFailed = "publish_failed"
}

/// The receiver's Prometheus series, created up front for every provider and
/// result so dashboards see zeros rather than missing series.
struct WebhookMetrics: Sendable {
    private let received: [Provider: [WebhookResult: Counter]]
    private let unparsed: [Provider: Counter]
    private let publishLatency: [Provider: Histogram]

    init(registry: MetricsRegistry) {
        var received: [Provider: [WebhookResult: Counter]] = [:]
        var unparsed: [Provider: Counter] = [:]
        var latency: [Provider: Histogram] = [:]
        for provider in Provider.allCases {
            for result in WebhookResult.allCases {
                received[provider, default: [:]][result] = registry.counter(
                    "webhooks_received_total", help: "Webhook requests by provider and result.",
                    labels: ["provider": provider.rawValue, "result": result.rawValue])
            }
            unparsed[provider] = registry.counter(
                "webhooks_unparsed_total", help: "Verified webhooks whose body could not be understood (published for dead-lettering).",
                labels: ["provider": provider.rawValue])
            latency[provider] = registry.histogram(
                "webhooks_publish_duration_seconds", help: "Time from publish to broker acknowledgement or give-up.",
                labels: ["provider": provider.rawValue])
        }
        self.received = received
        self.unparsed = unparsed
        publishLatency = latency
    }

    func count(_ provider: Provider, _ result: WebhookResult) {
        received[provider]?[result]?.increment()
    }

    func countUnparsed(_ provider: Provider) {
        unparsed[provider]?.increment()
    }

    func observePublish(_ provider: Provider, seconds: Double) {
        publishLatency[provider]?.observe(seconds)
    }
}
