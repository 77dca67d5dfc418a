/// How long a session may wait for the server, for locks, and for the network.
///
/// Without limits a failover or a silent network drop leaves a query waiting
/// forever: the projector stops applying and the checkout's pool runs dry.
/// The server-side limits (`statement_timeout`, `lock_timeout`,
/// `idle_in_transaction_session_timeout`) are sent at connect time in libpq's
/// `options`; the network limits are libpq keywords (`connect_timeout`,
/// `keepalives*`, `tcp_user_timeout`). On top of those the client gives up on
/// a session whose server has said nothing for ``responseTimeout``: keepalives
/// and the user timeout only see a dead peer, not a middlebox (a proxy, a
/// NAT) that still acknowledges packets but forwards nothing.
///
/// A limit that fires surfaces as a ``PostgresError`` of kind `.timeout`.
/// Each service picks a preset (``requestPath``, ``batch``, ``maintenance``)
/// and may override every value from its environment
/// (``fromEnvironment(_:defaults:)``).
public struct PostgresSessionLimits: Sendable, Hashable {
    /// Longest a statement may run on the server (`statement_timeout`); `nil`: no limit.
    public var statementTimeout: Duration?
    /// Longest a statement may wait for a lock (`lock_timeout`); `nil`: no limit.
    public var lockTimeout: Duration?
    /// Longest a session may sit idle inside a transaction before the server
    /// ends it (`idle_in_transaction_session_timeout`); `nil`: no limit.
    public var idleInTransactionTimeout: Duration?
    /// Longest to wait for a connection to be established (`connect_timeout`,
    /// whole seconds, at least 2 as libpq requires); `nil`: forever.
    public var connectTimeout: Duration?
    /// Idle time before the first TCP keepalive probe (`keepalives_idle`).
    public var keepaliveIdle: Duration
    /// Time between unanswered keepalive probes (`keepalives_interval`).
    public var keepaliveInterval: Duration
    /// Unanswered probes after which the connection is dead (`keepalives_count`).
    public var keepaliveCount: Int
    /// Longest sent data may stay unacknowledged before the kernel drops the
    /// connection (`tcp_user_timeout`, Linux); `nil`: the kernel's default (minutes).
    public var tcpUserTimeout: Duration?

    /// Creates limits; every `nil` leaves that limit off.
    public init(
        statementTimeout: Duration? = nil, lockTimeout: Duration? = nil, idleInTransactionTimeout: Duration? = nil,
        connectTimeout: Duration? = .seconds(10), keepaliveIdle: Duration = .seconds(30), keepaliveInterval: Duration = .seconds(10),
        keepaliveCount: Int = 3, tcpUserTimeout: Duration? = .seconds(30)
    ) {
        self.statementTimeout = statementTimeout
        self.lockTimeout = lockTimeout
        self.idleInTransactionTimeout = idleInTransactionTimeout
        self.connectTimeout = connectTimeout
        self.keepaliveIdle = keepaliveIdle
        self.keepaliveInterval = keepaliveInterval
        self.keepaliveCount = keepaliveCount
        self.tcpUserTimeout = tcpUserTimeout
    }

    /// The checkout: an app is waiting, so a statement fails fast (and the
    /// request answers 503) rather than holding one of the pool's few
    /// connections. Its statements are single-row reads and small writes.
    public static let requestPath = Self(
        statementTimeout: .seconds(5), lockTimeout: .seconds(2), idleInTransactionTimeout: .seconds(15),
        connectTimeout: .seconds(5), keepaliveIdle: .seconds(10), keepaliveInterval: .seconds(5), keepaliveCount: 3,
        tcpUserTimeout: .seconds(10))

    /// The projector: a batch of up to a thousand records is one pipeline and
    /// a few set-based folds, and two replicas may wait on each other's batch
    /// locks during a rebalance. A batch that hits a limit is retried whole.
    public static let batch = Self(
        statementTimeout: .seconds(60), lockTimeout: .seconds(30), idleInTransactionTimeout: .seconds(120),
        connectTimeout: .seconds(10), keepaliveIdle: .seconds(15), keepaliveInterval: .seconds(5), keepaliveCount: 3,
        tcpUserTimeout: .seconds(30))

    /// Operator tools and reports (drift figures, `storefront status`): long
    /// reads are fine, a dead server still is not. Migrations lift the
    /// statement and lock limits further for their own run
    /// (``PostgresMigrator/statementTimeout``).
    public static let maintenance = Self(
        statementTimeout: .seconds(600), lockTimeout: .seconds(60), idleInTransactionTimeout: .seconds(600),
        connectTimeout: .seconds(10), keepaliveIdle: .seconds(15), keepaliveInterval: .seconds(5), keepaliveCount: 3,
        tcpUserTimeout: .seconds(30))

    /// How long the client waits for the server to say anything about a
    /// statement before it declares the session dead and closes it: the
    /// server's statement limit (after which it answers with an error), plus
    /// the network's limit to deliver that answer. `nil` when there is no
    /// statement limit.
    public var responseTimeout: Duration? {
        responseTimeout(statementTimeout: statementTimeout)
    }

    /// ``responseTimeout`` for a session whose statement limit was changed to `statementTimeout`.
    func responseTimeout(statementTimeout: Duration?) -> Duration? {
        guard let statementTimeout, statementTimeout > .zero else { return nil }
        return statementTimeout + (tcpUserTimeout ?? keepaliveIdle + keepaliveInterval * keepaliveCount)
    }

    /// Server settings sent in `options` (milliseconds; 0 would mean off, so an off limit is left out).
    var serverSettings: [(String, String)] {
        [
            ("statement_timeout", statementTimeout), ("lock_timeout", lockTimeout),
            ("idle_in_transaction_session_timeout", idleInTransactionTimeout),
        ].compactMap { name, value in value.map { (name, String(Self.milliseconds($0))) } }
    }

    /// libpq keywords for the network limits.
    var keywordPairs: [(String, String)] {
        var pairs: [(String, String)] = [
            ("keepalives", "1"), ("keepalives_idle", String(Self.seconds(keepaliveIdle))),
            ("keepalives_interval", String(Self.seconds(keepaliveInterval))), ("keepalives_count", String(max(1, keepaliveCount))),
        ]
        // libpq reads 1 as 2 seconds; a zero would mean "wait forever".
        if let connectTimeout { pairs.append(("connect_timeout", String(max(2, Self.seconds(connectTimeout))))) }
        if let tcpUserTimeout { pairs.append(("tcp_user_timeout", String(max(1, Self.milliseconds(tcpUserTimeout))))) }
        return pairs
    }

    /// Whole milliseconds, rounded up so a tiny positive limit never becomes 0 (off).
    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(0, seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }

    /// Whole seconds, at least 1 (libpq's keepalive keywords take seconds).
    static func seconds(_ duration: Duration) -> Int64 {
        max(1, (milliseconds(duration) + 999) / 1000)
    }
}

extension PostgresSessionLimits: CustomStringConvertible {
    /// One line for a start-up log: every limit, nothing secret.
    public var description: String {
        func text(_ value: Duration?) -> String { value.map { "\(Self.milliseconds($0))ms" } ?? "off" }
        return "statement=\(text(statementTimeout)) lock=\(text(lockTimeout)) idle_in_transaction=\(text(idleInTransactionTimeout)) "
            + "connect=\(text(connectTimeout)) keepalive=\(Self.seconds(keepaliveIdle))s/\(Self.seconds(keepaliveInterval))s/\(keepaliveCount) "
            + "tcp_user=\(text(tcpUserTimeout)) response=\(text(responseTimeout))"
    }
}
