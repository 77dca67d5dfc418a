import ServiceSettings

// How every service's retention job runs (RetentionJob); which rows each one
// keeps, and for how long, is declared by the service that owns the table.

extension Setting {
    public static let retentionInterval = Setting(
        "RETENTION_INTERVAL", default: "10m", "how often the retention job prunes the service's tables (at least 1s)")
    public static let retentionBatchSize = Setting(
        "RETENTION_BATCH_SIZE", default: "1000", "rows one retention statement deletes at most (1-100000)")
    public static let retentionBatchPause = Setting(
        "RETENTION_BATCH_PAUSE", default: "100ms", "the retention job's pause between two batches of one table")
}

extension SettingGroup {
    public static let retention = SettingGroup(
        "Retention (every service that owns tables)", [.retentionInterval, .retentionBatchSize, .retentionBatchPause])
}
