import ServiceSettings

extension PostgresSessionLimits {
    /// The limits a service's preset gives, each overridable by one variable:
    /// `DATABASE_STATEMENT_TIMEOUT`, `DATABASE_LOCK_TIMEOUT`,
    /// `DATABASE_IDLE_IN_TRANSACTION_TIMEOUT`, `DATABASE_CONNECT_TIMEOUT`,
    /// `DATABASE_TCP_USER_TIMEOUT` (durations: `30`, `250ms`, `5m`; `0` turns
    /// the limit off), `DATABASE_KEEPALIVE_IDLE`, `DATABASE_KEEPALIVE_INTERVAL`
    /// (durations) and `DATABASE_KEEPALIVE_COUNT` (1–100). Assigned to
    /// ``PostgresConfiguration/limits``, they replace the URL's
    /// `statement_timeout` and `connect_timeout`; other libpq keywords in the
    /// URL (``PostgresConfiguration/extraParameters``) still win.
    /// - Parameters:
    ///   - reader: where the variables are read; problems are reported there.
    ///   - defaults: the service's preset.
    public static func fromEnvironment(_ reader: inout ConfigReader, defaults: Self) -> Self {
        // Each read names its variable literally: scripts/check_compose.py finds the settings that way.
        var limits = defaults
        limits.statementTimeout = onUnlessZero(reader.duration("DATABASE_STATEMENT_TIMEOUT", default: defaults.statementTimeout ?? .zero))
        limits.lockTimeout = onUnlessZero(reader.duration("DATABASE_LOCK_TIMEOUT", default: defaults.lockTimeout ?? .zero))
        limits.idleInTransactionTimeout = onUnlessZero(
            reader.duration("DATABASE_IDLE_IN_TRANSACTION_TIMEOUT", default: defaults.idleInTransactionTimeout ?? .zero))
        limits.connectTimeout = onUnlessZero(reader.duration("DATABASE_CONNECT_TIMEOUT", default: defaults.connectTimeout ?? .zero))
        limits.tcpUserTimeout = onUnlessZero(reader.duration("DATABASE_TCP_USER_TIMEOUT", default: defaults.tcpUserTimeout ?? .zero))
        limits.keepaliveIdle = reader.duration("DATABASE_KEEPALIVE_IDLE", default: defaults.keepaliveIdle)
        limits.keepaliveInterval = reader.duration("DATABASE_KEEPALIVE_INTERVAL", default: defaults.keepaliveInterval)
        limits.keepaliveCount = reader.int("DATABASE_KEEPALIVE_COUNT", default: defaults.keepaliveCount, in: 1...100)
        return limits
    }

    /// A limit of zero is no limit.
    private static func onUnlessZero(_ value: Duration) -> Duration? { value > .zero ? value : nil }
}
