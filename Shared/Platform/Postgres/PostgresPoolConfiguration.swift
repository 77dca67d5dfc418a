/// Sizing and timing of a ``PostgresPool``.
public struct PostgresPoolConfiguration: Sendable, Hashable {
    /// Most connections open at once. Default 10.
    public var maximumConnections: Int
    /// How long `withConnection` waits for a free connection before throwing
    /// `.poolTimeout`. Default 10 seconds.
    public var acquireTimeout: Duration
    /// A connection idle for longer than this gets a round-trip check before it
    /// is handed out. Default 30 seconds. (Cheaper local checks run every time.)
    public var healthCheckAfterIdle: Duration

    /// Creates pool settings.
    /// - Parameters:
    ///   - maximumConnections: at least 1.
    ///   - acquireTimeout: wait limit when all connections are in use.
    ///   - healthCheckAfterIdle: idle time after which a round-trip check runs.
    public init(
        maximumConnections: Int = 10, acquireTimeout: Duration = .seconds(10),
        healthCheckAfterIdle: Duration = .seconds(30)
    ) {
        self.maximumConnections = max(1, maximumConnections)
        self.acquireTimeout = acquireTimeout
        self.healthCheckAfterIdle = healthCheckAfterIdle
    }
}

/// A snapshot of a pool's counters.
public struct PostgresPoolStatistics: Sendable, Hashable {
    /// Connections open or being opened, idle or checked out.
    public var open: Int
    /// Connections waiting in the pool.
    public var idle: Int
    /// Callers waiting for a connection.
    public var waiting: Int
}
