import Timing
import ServiceSettings

// PostgreSQL's address and the session limits every connection carries (PostgresSessionLimits.fromEnvironment).

extension Setting {
    public static let databaseURL = Setting(
        "DATABASE_URL", required: true, "postgres:// URL of the database (with the service's own login user)")
    public static let databaseStatementTimeout = Setting(
        "DATABASE_STATEMENT_TIMEOUT", default: "preset: 5s request path, 60s batch, 10m maintenance",
        "longest a statement may run (statement_timeout)")
    public static let databaseLockTimeout = Setting(
        "DATABASE_LOCK_TIMEOUT", default: "preset: 2s, 30s, 60s", "longest a statement may wait for a lock (lock_timeout)")
    public static let databaseIdleInTransactionTimeout = Setting(
        "DATABASE_IDLE_IN_TRANSACTION_TIMEOUT", default: "preset: 15s, 120s, 10m",
        "the server ends a session idle inside a transaction (idle_in_transaction_session_timeout)")
    public static let databaseConnectTimeout = Setting(
        "DATABASE_CONNECT_TIMEOUT", default: "preset: 5s, 10s, 10s", "longest to establish a connection (connect_timeout, whole seconds, at least 2)")
    public static let databaseTCPUserTimeout = Setting(
        "DATABASE_TCP_USER_TIMEOUT", default: "preset: 10s, 30s, 30s",
        "longest sent data may stay unacknowledged before the kernel drops the connection")
    public static let databaseKeepaliveIdle = Setting(
        "DATABASE_KEEPALIVE_IDLE", default: "preset: 10s, 15s, 15s", "idle time before the first TCP keepalive probe")
    public static let databaseKeepaliveInterval = Setting(
        "DATABASE_KEEPALIVE_INTERVAL", default: "5s", "time between unanswered keepalive probes")
    public static let databaseKeepaliveCount = Setting(
        "DATABASE_KEEPALIVE_COUNT", default: "3", "unanswered probes after which the connection is dead")
}

extension SettingGroup {
    public static let postgresConnection = SettingGroup(
        "PostgreSQL", [.databaseURL])
    public static let postgresLimits = SettingGroup(
        "PostgreSQL session limits",
        [
            .databaseStatementTimeout, .databaseLockTimeout, .databaseIdleInTransactionTimeout, .databaseConnectTimeout, .databaseTCPUserTimeout,
            .databaseKeepaliveIdle, .databaseKeepaliveInterval, .databaseKeepaliveCount,
        ])
}
