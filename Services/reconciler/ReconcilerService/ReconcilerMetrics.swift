import BillingModel
import Telemetry

/// The reconciler's Prometheus series. Series with bounded labels are
/// created up front, so dashboards see zeros rather than missing series.
public struct ReconcilerMetrics: Sendable {
    /// What a fetch ended in (the `outcome` label of `reconciler_fetches_total`).
    public enum FetchOutcome: String, Sendable, CaseIterable {
        /// The provider answered with the object.
        case found
        /// The provider does not have it (a snapshot says so).
        case notFound = "not_found"
        /// Failed in a way waiting may cure (outage, rate limit): parked for a retry.
        case retry
        /// Failed for good (the provider can never answer it): given up, logged.
        case failed
    }

    public let registry: MetricsRegistry

    public init(registry: MetricsRegistry) {
        self.registry = registry
        for provider in Provider.allCases {
            for outcome in FetchOutcome.allCases { _ = fetches(provider, outcome) }
            for kind in ReconcileTrigger.Kind.allCases { _ = published(provider, kind) }
            _ = requests(provider)
            _ = rateLimited(provider)
            _ = lag(provider)
            _ = driftTotal(provider)
        }
        for reason in ["queue_full", "abandoned"] { _ = dropped(reason) }
        for reason in ["parked", "overdue"] { _ = releasedEarly(reason) }
    }

    /// `reconciler_released_before_snapshot_total{reason}`: records whose
    /// offsets were let go before their snapshot was published (`parked`: the
    /// fetch failed and waits for a retry; `overdue`: it waited longer than
    /// `RECONCILER_MAX_COMMIT_DELAY`). What a crash could lose; the next sweep covers it.
    public func releasedEarly(_ reason: String) -> Counter {
        registry.counter(
            "reconciler_released_before_snapshot_total",
            help: "Records committed before their snapshot was published (kept in memory; a sweep covers them after a crash).",
            labels: ["reason": reason])
    }

    /// `reconciler_fetches_total{provider,outcome}`: single-object fetches.
    public func fetches(_ provider: Provider, _ outcome: FetchOutcome) -> Counter {
        registry.counter(
            "reconciler_fetches_total", help: "Single-object fetches from the provider, by outcome.",
            labels: ["provider": provider.rawValue, "outcome": outcome.rawValue])
    }

    /// `reconciler_provider_requests_total{provider}`: every HTTP request to the provider (fetches, list pages, retries).
    public func requests(_ provider: Provider) -> Counter {
        registry.counter(
            "reconciler_provider_requests_total", help: "HTTP requests sent to the provider (fetches, list pages and retries).",
            labels: ["provider": provider.rawValue])
    }

    /// `reconciler_provider_rate_limited_total{provider}`: 429 answers.
    public func rateLimited(_ provider: Provider) -> Counter {
        registry.counter(
            "reconciler_provider_rate_limited_total", help: "Requests the provider refused with 429.",
            labels: ["provider": provider.rawValue])
    }

    /// `reconciler_snapshots_published_total{provider,trigger}`.
    public func published(_ provider: Provider, _ kind: ReconcileTrigger.Kind) -> Counter {
        registry.counter(
            "reconciler_snapshots_published_total", help: "Snapshots acknowledged by the broker, by what triggered them.",
            labels: ["provider": provider.rawValue, "trigger": kind.rawValue])
    }

    /// `reconciler_snapshot_lag_seconds{provider}`: fetch finished minus the oldest record it answers was received.
    public func lag(_ provider: Provider) -> Histogram {
        registry.histogram(
            "reconciler_snapshot_lag_seconds", help: "Fetch finished minus when the record that asked for it was received.",
            labels: ["provider": provider.rawValue], buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600])
    }

    /// `reconciler_dropped_total{reason}`: requests given up (`queue_full`: the
    /// pending queue was full; `abandoned`: the provider can never answer).
    public func dropped(_ reason: String) -> Counter {
        registry.counter("reconciler_dropped_total", help: "Fetch requests given up; the next sweep covers them.", labels: ["reason": reason])
    }

    /// `reconciler_records_total{topic,result}`: consumed records.
    public func records(_ topic: String, _ result: String) -> Counter {
        registry.counter(
            "reconciler_records_total", help: "Consumed records, by topic and what was done with them.",
            labels: ["topic": topic, "result": result])
    }

    /// `reconciler_sweep_drift_total{provider}`: listed subscriptions whose status differed from the projection.
    public func driftTotal(_ provider: Provider) -> Counter {
        registry.counter(
            "reconciler_sweep_drift_total",
            help: "Subscriptions whose provider status differed from the projection's row (or that had none), over all sweeps.",
            labels: ["provider": provider.rawValue])
    }

    /// `reconciler_sweep_drift{provider}`: the same, in the latest completed sweep.
    public func drift(_ provider: Provider) -> Gauge {
        registry.gauge(
            "reconciler_sweep_drift",
            help: "Subscriptions whose provider status differed from the projection in the latest sweep (drift found per sweep).",
            labels: ["provider": provider.rawValue])
    }

    /// `reconciler_sweeps_total{provider,result}`: `ok`, `failed`.
    public func sweeps(_ provider: Provider, _ result: String) -> Counter {
        registry.counter(
            "reconciler_sweeps_total", help: "Sweeps of a provider's lists, by result.", labels: ["provider": provider.rawValue, "result": result])
    }

    /// `reconciler_sweep_duration_seconds{provider}`: the latest sweep.
    public func sweepDuration(_ provider: Provider) -> Gauge {
        registry.gauge(
            "reconciler_sweep_duration_seconds", help: "How long the latest sweep of the provider took.", labels: ["provider": provider.rawValue])
    }

    /// `reconciler_sweep_objects{provider,list,result}`: `listed` and `published` in the latest sweep.
    public func sweepObjects(_ provider: Provider, _ list: SweepList, _ result: String) -> Gauge {
        registry.gauge(
            "reconciler_sweep_objects", help: "Objects the latest sweep listed and published, per list.",
            labels: ["provider": provider.rawValue, "list": list.rawValue, "result": result])
    }

    /// `reconciler_last_sweep_timestamp_seconds{provider}`: when the latest successful sweep started.
    public func lastSweep(_ provider: Provider) -> Gauge {
        registry.gauge(
            "reconciler_last_sweep_timestamp_seconds", help: "Unix time the latest successful sweep of the provider started.",
            labels: ["provider": provider.rawValue])
    }

    /// `reconciler_provider_up{provider}`: 1 while the provider's latest call succeeded.
    public func providerUp(_ provider: Provider) -> Gauge {
        registry.gauge(
            "reconciler_provider_up", help: "1 while the provider's latest call succeeded, 0 during an outage.",
            labels: ["provider": provider.rawValue])
    }

    /// `reconciler_oldest_unreconciled_webhook_seconds`: age of the oldest webhook no published snapshot answers yet.
    public var oldestUnreconciledWebhook: Gauge {
        registry.gauge(
            "reconciler_oldest_unreconciled_webhook_seconds",
            help: "Age of the oldest consumed webhook whose object has no published snapshot yet (0: none).")
    }

    /// `reconciler_pending_objects{state}`: `waiting`, `in_flight`, `parked` (failed, retrying).
    public func pending(_ state: String) -> Gauge {
        registry.gauge("reconciler_pending_objects", help: "Objects waiting for a fetch, by state.", labels: ["state": state])
    }

    /// `reconciler_uncommitted_batches`: consumed batches not yet committed.
    public var uncommittedBatches: Gauge {
        registry.gauge("reconciler_uncommitted_batches", help: "Consumed batches whose offsets are not committed yet.")
    }
}
