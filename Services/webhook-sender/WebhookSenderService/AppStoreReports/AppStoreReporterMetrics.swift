import Telemetry

/// The reporter's Prometheus series (docs/metrics.md).
public struct AppStoreReporterMetrics: Sendable {
    /// `app_store_reports_lag_seconds`: the age of the oldest line not yet accepted nor refused; 0 when none waits.
    let lag: Gauge
    /// `app_store_reports_sends_total{result}`: `accepted`, `retried`, `refused` (dead, with Apple's reason).
    let accepted: Counter
    let retried: Counter
    let refused: Counter
    /// `app_store_reports_attempts_total`: every send.
    let attempts: Counter
    /// `app_store_reports_round_failures_total`: rounds that could not read or write their tables.
    let failedRounds: Counter

    public init(registry: MetricsRegistry) {
        lag = registry.gauge(
            "app_store_reports_lag_seconds", help: "Age of the oldest report line to Apple still waiting to be accepted (0: none waits).")
        let help = "Reports sent to Apple's External Purchase Server API, by result (accepted, retried, refused)."
        accepted = registry.counter("app_store_reports_sends_total", help: help, labels: ["result": "accepted"])
        retried = registry.counter("app_store_reports_sends_total", help: help, labels: ["result": "retried"])
        refused = registry.counter("app_store_reports_sends_total", help: help, labels: ["result": "refused"])
        attempts = registry.counter("app_store_reports_attempts_total", help: "Sends of reports to Apple, whatever their answer.")
        failedRounds = registry.counter(
            "app_store_reports_round_failures_total", help: "Rounds of the App Store reporter that failed on the database.")
    }
}
