import Telemetry

/// `retention_*`: rows each rule deleted, its failed runs, and when it last
/// finished, so a dashboard sees both the pruning and a job that stopped.
public struct RetentionMetrics: Sendable {
    let registry: MetricsRegistry

    /// Registers every rule's series at 0, so they exist from start-up.
    public init(registry: MetricsRegistry, rules: [RetentionRule]) {
        self.registry = registry
        for rule in rules {
            _ = rowsDeleted(rule.name)
            _ = failures(rule.name)
            _ = lastSuccess(rule.name)
        }
    }

    func rowsDeleted(_ table: String) -> Counter {
        registry.counter(
            "retention_rows_deleted_total", help: "Rows the retention job deleted, by table (and kind of row).", labels: ["table": table])
    }

    func failures(_ table: String) -> Counter {
        registry.counter(
            "retention_failures_total", help: "Retention runs of a table that failed (tried again next interval).", labels: ["table": table])
    }

    func lastSuccess(_ table: String) -> Gauge {
        registry.gauge(
            "retention_last_success_timestamp_seconds", help: "When the retention job last finished a table (Unix seconds; 0: not yet).",
            labels: ["table": table])
    }
}
