import BillingModel
import Telemetry

/// The checkout service's Prometheus series.
public struct CheckoutMetrics: Sendable {
    let registry: MetricsRegistry
    /// `checkout_idempotent_replays_total`: answers served from a stored idempotency record.
    let idempotentReplays: Counter
    /// `checkout_catalog_refresh_failures_total`: provider catalog loads that failed (one per failed source per refresh).
    let catalogRefreshFailures: Counter

    init(registry: MetricsRegistry) {
        self.registry = registry
        idempotentReplays = registry.counter(
            "checkout_idempotent_replays_total", help: "Create-checkout answers replayed from an idempotency record.")
        catalogRefreshFailures = registry.counter("checkout_catalog_refresh_failures_total", help: "Provider catalog loads that failed.")
    }

    /// `checkout_checkouts_created_total{provider}`.
    func checkoutsCreated(_ provider: Provider) -> Counter {
        registry.counter("checkout_checkouts_created_total", help: "Hosted checkouts created, by provider.", labels: ["provider": provider.rawValue])
    }

    /// `checkout_subscription_commands_total{provider,kind}` (kind `cancel`, `resume`, `change` or `refund`).
    func commands(_ provider: Provider, kind: String) -> Counter {
        registry.counter(
            "checkout_subscription_commands_total",
            help: "Subscription cancels, resumes and plan changes, and support's refunds, accepted by the provider.",
            labels: ["provider": provider.rawValue, "kind": kind])
    }

    /// `checkout_provider_errors_total{provider,kind}`.
    func providerErrors(_ provider: Provider, kind: String) -> Counter {
        registry.counter(
            "checkout_provider_errors_total", help: "Failed provider calls, by provider and error kind.",
            labels: ["provider": provider.rawValue, "kind": kind])
    }

    /// `checkout_quota_refusals_total{action}`: requests answered 429 by a per-user quota.
    func quotaRefusals(_ action: UserQuotaPolicy.Action) -> Counter {
        registry.counter(
            "checkout_quota_refusals_total", help: "Requests refused by a per-user quota, by action.", labels: ["action": action.rawValue])
    }

    /// What became of a refresh of a subscription past its period end (``SubscriptionRefresher``).
    enum RefreshResult: String, Sendable {
        /// The broker acknowledged the `refresh_requested` command.
        case published
        /// The publish failed (logged; the read was answered anyway).
        case failed
        /// Asked for the same subscription within the limiter's interval: not sent again.
        case limited
        /// The limiter is full: not sent (the reconciler's sweep covers it).
        case dropped
    }

    /// `checkout_refresh_requests_total{result}`.
    func refreshRequests(_ result: RefreshResult) -> Counter {
        registry.counter(
            "checkout_refresh_requests_total",
            help: "Refresh commands for subscriptions read past their period end, by result (published, failed, limited, dropped).",
            labels: ["result": result.rawValue])
    }

    /// `checkout_catalog_items{provider}`.
    func catalogItems(_ provider: Provider) -> Gauge {
        registry.gauge("checkout_catalog_items", help: "Variants in the cached catalog, by provider.", labels: ["provider": provider.rawValue])
    }
}
