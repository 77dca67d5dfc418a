import ServiceSettings

/// When and how much the retention job deletes: a run every ``interval``, in
/// statements of at most ``batchSize`` rows with ``batchPause`` between them,
/// so each statement is short, holds its row locks briefly, and leaves the
/// database to the hot path in between.
public struct RetentionSchedule: Sendable, Equatable {
    public var interval: Duration
    public var batchSize: Int
    public var batchPause: Duration

    public init(interval: Duration = .seconds(600), batchSize: Int = 1000, batchPause: Duration = .milliseconds(100)) {
        self.interval = interval
        self.batchSize = batchSize
        self.batchPause = batchPause
    }

    /// Reads `RETENTION_INTERVAL`, `RETENTION_BATCH_SIZE` and `RETENTION_BATCH_PAUSE`; problems go to `reader`.
    public static func fromEnvironment(_ reader: inout ConfigReader) -> RetentionSchedule {
        var schedule = RetentionSchedule()
        let interval = reader.duration(.retentionInterval, default: schedule.interval)
        if interval < .seconds(1) {
            reader.report(.retentionInterval, "must be at least 1s")
        } else {
            schedule.interval = interval
        }
        schedule.batchSize = reader.int(.retentionBatchSize, default: schedule.batchSize, in: 1...100_000)
        schedule.batchPause = reader.duration(.retentionBatchPause, default: schedule.batchPause)
        return schedule
    }
}
