import ServiceRuntime
import Telemetry

/// The business at a glance, from the projection: `storefront_subscriptions`
/// and `storefront_subscriptions_billing_issue`, by provider, plan and status.
///
/// Counted on a timer, not per scrape: the query scans the table, and a
/// scrape must answer at once. Every projector replica publishes the same
/// figures (they read one table), so dashboards take `max by (...)`, never
/// `sum`. A group that empties is set to 0 rather than left at its last count.
public struct SubscriptionGauges: Service {
    /// Often enough for a dashboard, rare enough to cost nothing.
    public static let defaultInterval: Duration = .seconds(30)

    public let name = "subscription-gauges"
    let source: any SubscriptionCountsSource
    let registry: MetricsRegistry
    let interval: Duration
    let failures: Counter
    let logger: Logger
    /// Label sets published so far, to zero the ones that vanish.
    private let published = PublishedGroups()

    public init(
        source: any SubscriptionCountsSource, registry: MetricsRegistry, logger: Logger, interval: Duration = SubscriptionGauges.defaultInterval
    ) {
        self.source = source
        self.registry = registry
        self.interval = interval
        self.logger = logger
        failures = registry.counter(
            "storefront_subscription_gauges_failures_total",
            help: "Counts of the subscriptions table that failed (the gauges keep their last values).")
    }

    /// Waits one interval before the first count, so the table exists by
    /// then (the consumer service migrates at start-up).
    public func run() async throws {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            if Task.isCancelled { return }
            await refresh()
        }
    }

    func refresh() async {
        do {
            record(try await source.counts())
        } catch {
            failures.increment()
            logger.warning("subscription counts not read", metadata: ["error": "\(error)"])
        }
    }

    func record(_ counts: [SubscriptionCount]) {
        var seen: Set<[String: String]> = []
        for count in counts {
            let labels = ["provider": count.provider, "plan": count.plan, "status": count.status]
            seen.insert(labels)
            subscriptions(labels).set(Double(count.subscriptions))
            billingIssues(labels).set(Double(count.withBillingIssue))
        }
        for labels in published.replace(with: seen) {
            subscriptions(labels).set(0)
            billingIssues(labels).set(0)
        }
    }

    private func subscriptions(_ labels: [String: String]) -> Gauge {
        registry.gauge(
            "storefront_subscriptions", help: "Projected subscriptions by provider, plan and the provider's status.", labels: labels)
    }

    private func billingIssues(_ labels: [String: String]) -> Gauge {
        registry.gauge(
            "storefront_subscriptions_billing_issue",
            help: "Projected subscriptions with a billing issue recorded (a failed renewal), by provider, plan and status.", labels: labels)
    }
}
