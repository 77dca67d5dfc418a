import ServiceSettings
import Foundation
import Postgres
import ServiceRuntime

/// The reconciler's own settings, from the environment (provider settings come
/// from ``ReconcilerProviderSettings``, broker settings from `MessagingSettings`).
public struct ReconcilerConfiguration: Sendable {
    /// `KAFKA_GROUP_ID` (default `reconciler`): the consumer group of every replica.
    public var groupID: String
    /// `RECONCILER_COALESCE_WINDOW` (default 1 s): records about one object that
    /// arrive within this window of the first are answered by one fetch.
    public var coalesceWindow: Duration
    /// `RECONCILER_COMMAND_DELAY` (default 5 s): after a cancel or resume
    /// command, the fetch waits this long after the request so the provider
    /// has applied it.
    public var commandDelay: Duration
    /// `RECONCILER_FETCH_CONCURRENCY` (default 4): fetches in flight at once (all providers).
    public var fetchConcurrency: Int
    /// `RECONCILER_RETRY_INITIAL_DELAY` (1 s) and `RECONCILER_RETRY_MAX_DELAY` (5 min):
    /// the jittered backoff of a fetch that failed (outage, rate limit) before it is tried again.
    public var retryInitialDelay: Duration
    public var retryMaxDelay: Duration
    /// `RECONCILER_MAX_PENDING` (default 100 000): objects waiting for a fetch
    /// (coalescing or retrying); further ones are dropped and counted (the next sweep covers them).
    public var maxPending: Int
    /// `RECONCILER_MAX_COMMIT_DELAY` (default 60 s, at most 4 min): a record
    /// whose fetch has not started after this long (the provider budget is
    /// behind) no longer holds its offset; the fetch stays queued in memory.
    /// Keeps the consumer polling well within librdkafka's 5-minute
    /// `max.poll.interval.ms`, after which the group would expel it.
    public var maxCommitDelay: Duration
    /// `RECONCILER_BATCH_SIZE` (default 500): records per consumed batch.
    public var batchSize: Int
    /// `RECONCILER_MAX_UNCOMMITTED_BATCHES` (default 64): batches consumed but
    /// not yet committed before consumption pauses.
    public var maxUncommittedBatches: Int
    /// `RECONCILER_SHUTDOWN_GRACE` (default 5 s, at most 8 s: the service group
    /// gives each service 10 s to stop): how long a stopping reconciler
    /// finishes consumed records before it leaves the group (the rest is re-read).
    public var shutdownGrace: Duration
    /// `RECONCILER_SWEEP_INTERVAL` (default 1 h; `0` turns scheduled sweeps off).
    public var sweepInterval: Duration
    /// `RECONCILER_SWEEP_INITIAL_DELAY` (default 60 s, at most the interval):
    /// the first sweep after start-up (a full one: nothing is known yet).
    public var sweepInitialDelay: Duration
    /// `RECONCILER_SWEEP_OVERLAP` (default 5 min): a sweep publishes what the
    /// provider changed since the previous sweep started minus this margin
    /// (clock skew, changes made while the previous one paged).
    public var sweepOverlap: Duration
    /// `RECONCILER_REVENUE_INTERVAL` (default 5 min; `0` turns them off): how
    /// often the revenue gauges are computed from the event log
    /// (``RevenueGauges``); only with `DATABASE_URL`.
    public var revenueInterval: Duration
    /// `DATABASE_URL` (optional): the projection, read only, to count drift
    /// (listed subscriptions whose status differs from their row), and the
    /// provider ledger shared with the checkout (the only tables it writes).
    /// Unset: no drift figures, and each replica keeps to its own budget.
    public var databaseURL: String?
    /// `DATABASE_STATEMENT_TIMEOUT` and the other `DATABASE_*` limits, for
    /// the drift reads (default ``PostgresSessionLimits/maintenance``: a
    /// report may read a while; a dead server must not hang the sweep).
    public var databaseLimits: PostgresSessionLimits = .maintenance

    public init(
        groupID: String = "reconciler", coalesceWindow: Duration = .seconds(1), commandDelay: Duration = .seconds(5),
        fetchConcurrency: Int = 4, retryInitialDelay: Duration = .seconds(1), retryMaxDelay: Duration = .seconds(300),
        maxPending: Int = 100_000, maxCommitDelay: Duration = .seconds(60), batchSize: Int = 500, maxUncommittedBatches: Int = 64,
        shutdownGrace: Duration = .seconds(5),
        sweepInterval: Duration = .seconds(3600), sweepInitialDelay: Duration = .seconds(60), sweepOverlap: Duration = .seconds(300),
        revenueInterval: Duration = RevenueGauges.defaultInterval, databaseURL: String? = nil
    ) {
        self.groupID = groupID
        self.coalesceWindow = coalesceWindow
        self.commandDelay = commandDelay
        self.fetchConcurrency = fetchConcurrency
        self.retryInitialDelay = retryInitialDelay
        self.retryMaxDelay = retryMaxDelay
        self.maxPending = maxPending
        self.maxCommitDelay = maxCommitDelay
        self.batchSize = batchSize
        self.maxUncommittedBatches = maxUncommittedBatches
        self.shutdownGrace = shutdownGrace
        self.sweepInterval = sweepInterval
        self.sweepInitialDelay = sweepInitialDelay
        self.sweepOverlap = sweepOverlap
        self.revenueInterval = revenueInterval
        self.databaseURL = databaseURL
    }

    /// Reads the settings; problems are collected in `reader`.
    public static func fromEnvironment(_ reader: inout ConfigReader) -> ReconcilerConfiguration {
        var configuration = ReconcilerConfiguration()
        configuration.groupID = reader.string(.reconcilerKafkaGroupID, default: configuration.groupID)
        configuration.coalesceWindow = reader.duration(.reconcilerCoalesceWindow, default: configuration.coalesceWindow)
        configuration.commandDelay = reader.duration(.reconcilerCommandDelay, default: configuration.commandDelay)
        configuration.fetchConcurrency = reader.int(.reconcilerFetchConcurrency, default: configuration.fetchConcurrency, in: 1...64)
        configuration.retryInitialDelay = reader.duration(.reconcilerRetryInitialDelay, default: configuration.retryInitialDelay)
        configuration.retryMaxDelay = reader.duration(.reconcilerRetryMaxDelay, default: configuration.retryMaxDelay)
        if configuration.retryMaxDelay < configuration.retryInitialDelay {
            reader.report(.reconcilerRetryMaxDelay, "must not be shorter than RECONCILER_RETRY_INITIAL_DELAY")
        }
        configuration.maxPending = reader.int(.reconcilerMaxPending, default: configuration.maxPending, in: 100...10_000_000)
        configuration.maxCommitDelay = reader.duration(.reconcilerMaxCommitDelay, default: configuration.maxCommitDelay)
        if configuration.maxCommitDelay > .seconds(240) {
            reader.report(
                .reconcilerMaxCommitDelay, "must be at most 4 min (the consumer must poll within librdkafka's 5-minute max.poll.interval.ms)")
        }
        configuration.batchSize = reader.int(.reconcilerBatchSize, default: configuration.batchSize, in: 1...10_000)
        configuration.maxUncommittedBatches = reader.int(
            .reconcilerMaxUncommittedBatches, default: configuration.maxUncommittedBatches, in: 1...10_000)
        configuration.shutdownGrace = reader.duration(.reconcilerShutdownGrace, default: configuration.shutdownGrace)
        if configuration.shutdownGrace > .seconds(8) {
            reader.report(.reconcilerShutdownGrace, "must be at most 8 s (each service gets 10 s to stop, leaving the group included)")
        }
        configuration.sweepInterval = reader.duration(.reconcilerSweepInterval, default: configuration.sweepInterval)
        if configuration.sweepInterval != .zero, configuration.sweepInterval < .seconds(1) {
            reader.report(.reconcilerSweepInterval, "must be 0 (no scheduled sweeps) or at least 1 s")
        }
        configuration.sweepInitialDelay = reader.duration(.reconcilerSweepInitialDelay, default: configuration.sweepInitialDelay)
        configuration.sweepOverlap = reader.duration(.reconcilerSweepOverlap, default: configuration.sweepOverlap)
        configuration.revenueInterval = reader.duration(.reconcilerRevenueInterval, default: configuration.revenueInterval)
        if configuration.revenueInterval != .zero, configuration.revenueInterval < .seconds(1) {
            reader.report(.reconcilerRevenueInterval, "must be 0 (no revenue gauges) or at least 1 s")
        }
        configuration.databaseURL = reader.string(.reconcilerDatabaseURL)
        if let url = configuration.databaseURL, (try? PostgresConfiguration(url: url)) == nil {
            reader.report(.reconcilerDatabaseURL, "not a valid postgres:// URL")
        }
        configuration.databaseLimits = PostgresSessionLimits.fromEnvironment(&reader, defaults: .maintenance)
        return configuration
    }

    /// The delay before the first scheduled sweep: the initial delay, at most one interval.
    var firstSweepDelay: Duration { min(sweepInitialDelay, sweepInterval) }
}
