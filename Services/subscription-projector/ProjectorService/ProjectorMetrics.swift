import Kafka
import BillingModel
import Telemetry
import Entitlements

/// The projector's Prometheus series.
///
/// Lag: exposed per partition as the offset after the last record consumed
/// and the last offset committed (`projector_consumed_offset`,
/// `projector_committed_offset`); lag is the broker's high watermark minus
/// the committed offset, which `KafkaConsumerGroupLagReader` (the scale demo,
/// `make bench`) reads from the broker without joining the group.
public struct ProjectorMetrics: Sendable {
    /// `projector_records_total{result="applied"}`: records written for the first time.
    public let applied: Counter
    /// `projector_records_total{result="duplicate"}`: records already applied (redeliveries, provider retries).
    public let duplicates: Counter
    /// `projector_records_total{result="dead_lettered"}`.
    public let deadLettered: Counter
    /// `projector_batch_seconds`: apply time per batch (decode, transaction, dead letters).
    public let batchLatency: Histogram
    /// `projector_batch_failures_total`: batches whose transaction failed and was retried.
    public let batchFailures: Counter
    /// `projector_subscriptions_projected_total`.
    public let subscriptionsProjected: Counter
    /// `projector_unreadable_logged_events_total`: logged events a fold left
    /// out because they no longer read back (counted at each fold that met one).
    public let unreadableLoggedEvents: Counter
    let registry: MetricsRegistry

    public init(registry: MetricsRegistry) {
        self.registry = registry
        let help = "Records consumed by the projector, by result."
        applied = registry.counter("projector_records_total", help: help, labels: ["result": "applied"])
        duplicates = registry.counter("projector_records_total", help: help, labels: ["result": "duplicate"])
        deadLettered = registry.counter("projector_records_total", help: help, labels: ["result": "dead_lettered"])
        batchLatency = registry.histogram("projector_batch_seconds", help: "Time to apply one batch, before its commit.")
        batchFailures = registry.counter("projector_batch_failures_total", help: "Batches whose transaction failed (then retried).")
        subscriptionsProjected = registry.counter("projector_subscriptions_projected_total", help: "Subscription rows re-folded and written.")
        unreadableLoggedEvents = registry.counter(
            "projector_unreadable_logged_events_total",
            help: "Logged events left out of a fold because they no longer read back (they stay in billing_events).")
        // Every provider's series exists from the start, at 0.
        for provider in Provider.allCases {
            _ = unprovenOwnershipClaims(provider)
            _ = webhookVisible(provider)
        }
    }

    /// `projector_unproven_ownership_claims_total{provider}`: webhook and
    /// snapshot records decoded (a redelivery counts again) whose custom data
    /// named a Storefront user or checkout without a valid ownership proof.
    public func unprovenOwnershipClaims(_ provider: Provider) -> Counter {
        registry.counter(
            "projector_unproven_ownership_claims_total",
            help: "Webhooks and snapshots whose custom data named a Storefront user or checkout without a valid ownership proof "
                + "(they gave the purchase no owner), by provider.",
            labels: ["provider": provider.rawValue])
    }

    /// Seconds from received to visible: 10 ms to 5 min, since a healthy
    /// stack answers within a second and a backlog drains over minutes.
    static let visibilityBuckets: [Double] = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]

    /// `projector_webhook_visible_seconds{provider}`: from the receiver's
    /// `receivedAt` to the commit of the transaction that applied the webhook
    /// (from then on status and entitlement reads see it).
    public func webhookVisible(_ provider: Provider) -> Histogram {
        registry.histogram(
            "projector_webhook_visible_seconds",
            help: "Seconds from a webhook's receipt by the webhook-receiver to the commit of the projector transaction that applied it, by provider.",
            labels: ["provider": provider.rawValue], buckets: Self.visibilityBuckets)
    }

    /// Records the offsets a batch reached.
    func consumed(_ offsets: [KafkaTopicPartition: Int64]) {
        for (partition, offset) in offsets {
            registry.gauge(
                "projector_consumed_offset", help: "Offset after the last record consumed, per partition.",
                labels: ["topic": partition.topic, "partition": String(partition.partition)]
            ).set(Double(offset))
        }
    }

    /// Records the offsets a commit stored.
    func committed(_ offsets: [KafkaTopicPartition: Int64]) {
        for (partition, offset) in offsets {
            registry.gauge(
                "projector_committed_offset", help: "Last offset committed, per partition.",
                labels: ["topic": partition.topic, "partition": String(partition.partition)]
            ).set(Double(offset))
        }
    }
}
