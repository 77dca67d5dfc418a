import Telemetry

/// The sender's Prometheus series, per endpoint (`endpoint` is the
/// endpoint's id: few, chosen by the operator, so the label stays small).
public struct WebhookSenderMetrics: Sendable {
    let registry: MetricsRegistry
    /// `webhook_sender_records_total{result}`: rows queued from topic records, records unreadable.
    let queued: Counter
    let unreadable: Counter
    /// `webhook_sender_claim_seconds`: one claim of due deliveries; flat however many rows wait behind heads.
    let claimTime: Histogram

    public init(registry: MetricsRegistry) {
        self.registry = registry
        let help = "storefront.entitlements.v1 and storefront.purchase-events.v1 records read by the webhook sender, by result."
        queued = registry.counter("webhook_sender_records_total", help: help, labels: ["result": "queued"])
        unreadable = registry.counter("webhook_sender_records_total", help: help, labels: ["result": "unreadable"])
        claimTime = registry.histogram("webhook_sender_claim_seconds", help: "Time of one claim of due deliveries (one statement).")
    }

    /// `webhook_sender_endpoint_disabled_total{endpoint}`: endpoints the circuit breaker disabled.
    func endpointDisabled(_ endpoint: String) -> Counter {
        registry.counter(
            "webhook_sender_endpoint_disabled_total",
            help: "Endpoints disabled by the circuit breaker after failing for WEBHOOK_SENDER_DISABLE_AFTER.",
            labels: ["endpoint": endpoint])
    }

    /// `webhook_sender_attempts_total{endpoint}`.
    func attempts(_ endpoint: String) -> Counter {
        registry.counter("webhook_sender_attempts_total", help: "Delivery attempts, per endpoint.", labels: ["endpoint": endpoint])
    }

    /// `webhook_sender_deliveries_total{endpoint,result}`: `delivered`, `failed` (to be retried), `dead`.
    func outcome(_ endpoint: String, _ result: String) -> Counter {
        registry.counter(
            "webhook_sender_deliveries_total", help: "Delivery attempts by endpoint and result (delivered, failed, dead).",
            labels: ["endpoint": endpoint, "result": result])
    }

    /// `webhook_sender_attempt_seconds{endpoint}`: the time one attempt took, whatever its outcome.
    func latency(_ endpoint: String) -> Histogram {
        registry.histogram("webhook_sender_attempt_seconds", help: "Time of one delivery attempt, per endpoint.", labels: ["endpoint": endpoint])
    }
}
