import Timing
import ServiceSettings
import BillingModel
import ProviderConfiguration

// The reconciler's own settings (ReconcilerConfiguration and ReconcilerProviderSettings).

extension Setting {
    public static let reconcilerKafkaGroupID = Setting(
        "KAFKA_GROUP_ID", default: "reconciler", "consumer group of the reconciler's replicas")
    public static let reconcilerDatabaseURL = Setting(
        "DATABASE_URL", "postgres:// URL for the shared provider budget, drift checks and revenue gauges; unset: a local budget only")
    public static let reconcilerCoalesceWindow = Setting(
        "RECONCILER_COALESCE_WINDOW", default: "1s", "events for one object within this window cause one fetch")
    public static let reconcilerCommandDelay = Setting(
        "RECONCILER_COMMAND_DELAY", default: "5s", "wait after a command before fetching (the provider applies it first)")
    public static let reconcilerFetchConcurrency = Setting(
        "RECONCILER_FETCH_CONCURRENCY", default: "4", "provider fetches in flight")
    public static let reconcilerRetryInitialDelay = Setting(
        "RECONCILER_RETRY_INITIAL_DELAY", default: "1s", "first wait after a failed fetch (doubling)")
    public static let reconcilerRetryMaxDelay = Setting(
        "RECONCILER_RETRY_MAX_DELAY", default: "300s", "longest wait between failed fetches")
    public static let reconcilerMaxPending = Setting(
        "RECONCILER_MAX_PENDING", default: "100000", "most objects waiting to be fetched before consuming pauses")
    public static let reconcilerMaxCommitDelay = Setting(
        "RECONCILER_MAX_COMMIT_DELAY", default: "60s", "longest a consumed offset waits to be committed")
    public static let reconcilerBatchSize = Setting(
        "RECONCILER_BATCH_SIZE", default: "500", "records consumed per batch")
    public static let reconcilerMaxUncommittedBatches = Setting(
        "RECONCILER_MAX_UNCOMMITTED_BATCHES", default: "64", "batches consumed but not yet committed before consuming pauses")
    public static let reconcilerShutdownGrace = Setting(
        "RECONCILER_SHUTDOWN_GRACE", default: "5s", "longest in-flight fetches may take after SIGTERM (at most 8s)")
    public static let reconcilerSweepInterval = Setting(
        "RECONCILER_SWEEP_INTERVAL", default: "1h", "time between sweeps of the providers' lists; 0 = no scheduled sweeps")
    public static let reconcilerSweepInitialDelay = Setting(
        "RECONCILER_SWEEP_INITIAL_DELAY", default: "60s", "wait before the first sweep")
    public static let reconcilerSweepOverlap = Setting(
        "RECONCILER_SWEEP_OVERLAP", default: "5m", "each sweep also re-reads this much before the last one's start")
    public static let reconcilerRevenueInterval = Setting(
        "RECONCILER_REVENUE_INTERVAL", default: "5m", "time between computations of the revenue gauges (needs DATABASE_URL); 0 = none")
    /// `RECONCILER_<STEM>_REQUESTS_PER_MINUTE`, one per registered provider.
    public static func reconcilerRequestsPerMinute(_ provider: Provider) -> Setting {
        Setting(
            "RECONCILER_\(provider.configurationRules.settingsStem)_REQUESTS_PER_MINUTE",
            "local \(provider.definition.displayName) request limit when DATABASE_URL is unset")
    }
}

extension SettingGroup {
    public static let reconciler = SettingGroup(
        "Reconciler",
        [
            .reconcilerKafkaGroupID, .reconcilerDatabaseURL, .reconcilerCoalesceWindow, .reconcilerCommandDelay, .reconcilerFetchConcurrency,
            .reconcilerRetryInitialDelay, .reconcilerRetryMaxDelay, .reconcilerMaxPending, .reconcilerMaxCommitDelay, .reconcilerBatchSize,
            .reconcilerMaxUncommittedBatches, .reconcilerShutdownGrace, .reconcilerSweepInterval, .reconcilerSweepInitialDelay,
            .reconcilerSweepOverlap, .reconcilerRevenueInterval,
        ])
    public static let reconcilerProviderLimits = SettingGroup(
        "Reconciler: local provider limits", Provider.allCases.map(Setting.reconcilerRequestsPerMinute))
}
