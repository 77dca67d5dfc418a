import Telemetry

/// The relay's Prometheus series.
struct OutboxMetrics: Sendable {
    /// `entitlement_outbox_published_total`.
    let published: Counter
    /// `entitlement_outbox_failures_total`: rounds that failed (then backed off).
    let failures: Counter
    /// `entitlement_outbox_depth`: rows not yet published, after the last round.
    let depth: Gauge
    /// `entitlement_outbox_publish_lag_seconds`: from the change's commit to the broker's acknowledgement.
    let publishLag: Histogram

    init(registry: MetricsRegistry) {
        published = registry.counter("entitlement_outbox_published_total", help: "Entitlement changes published to storefront.entitlements.v1.")
        failures = registry.counter("entitlement_outbox_failures_total", help: "Outbox relay rounds that failed (then retried after a backoff).")
        depth = registry.gauge("entitlement_outbox_depth", help: "Entitlement changes recorded but not yet published.")
        publishLag = registry.histogram(
            "entitlement_outbox_publish_lag_seconds", help: "Time from an entitlement change's commit to its acknowledgement by the broker.")
    }
}
