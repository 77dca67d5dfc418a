import ServiceSettings

/// The live stream's limits (`GET /api/entitlements/stream`), per checkout replica.
public struct EntitlementStreamSettings: Sendable, Equatable {
    /// How long one poll waits for a change before answering with none
    /// (`CHECKOUT_STREAM_WAIT`, default 25 s, 1 s to 25 s: below the
    /// handler's 30 s deadline and the gateway's read timeout, and short
    /// enough for mobile networks' idle cuts).
    public var wait: Duration
    /// Polls waiting at once at most (`CHECKOUT_STREAM_MAX_WAITING`, default
    /// 768); more are answered 503 with `Retry-After`, and the app falls back
    /// to reading `/api/entitlements`. A waiting poll holds no thread, only
    /// its connection and a suspended task. At most 3/4 of the server's
    /// connection limit (`HTTP_MAX_CONNECTIONS`, 1024), so every other route
    /// keeps a quarter of the connections however many polls wait.
    public var maxWaiting: Int
    /// Polls one user may have waiting at once (`CHECKOUT_STREAM_MAX_PER_USER`,
    /// default 4: a few devices of one account). A further poll ends that
    /// user's oldest, which is answered with no changes (the app polls again
    /// and misses nothing), so one token cannot hold the replica's connections.
    public var maxPerUser: Int
    /// How long changes stay in memory for a poll that names the last one it
    /// saw (`after`; `CHECKOUT_STREAM_REPLAY_WINDOW`, default 5 min). Older
    /// cursors are answered with `reset`: reread the entitlements.
    public var replayWindow: Duration
    /// Changes kept per user within the window, and in all (bounds memory
    /// whatever the traffic).
    public var replayPerUser: Int
    public var replayTotal: Int
    /// What the kept changes may cost in all (`CHECKOUT_STREAM_REPLAY_BYTES`,
    /// default 32 MiB; see ``EntitlementChangeHub/cost(of:)``): the oldest are
    /// dropped first, and a poll whose cursor went with them is told to reread.
    public var replayBytes: Int

    /// The share of the server's connections the stream's waiting polls may take.
    public static func maximumWaiting(connectionLimit: Int) -> Int { max(1, connectionLimit * 3 / 4) }

    public init(
        wait: Duration = .seconds(25), maxWaiting: Int = 768, maxPerUser: Int = 4, replayWindow: Duration = .seconds(300),
        replayPerUser: Int = 32, replayTotal: Int = 100_000, replayBytes: Int = 32 << 20
    ) {
        self.wait = wait
        self.maxWaiting = maxWaiting
        self.maxPerUser = maxPerUser
        self.replayWindow = replayWindow
        self.replayPerUser = replayPerUser
        self.replayTotal = replayTotal
        self.replayBytes = replayBytes
    }

    /// Reads the variables above; bad values are reported to `reader`.
    /// - Parameter connectionLimit: the server's `HTTP_MAX_CONNECTIONS`; the
    ///   waiting polls are kept to ``maximumWaiting(connectionLimit:)`` of it
    ///   (the default), and a larger `CHECKOUT_STREAM_MAX_WAITING` is a
    ///   configuration problem.
    public static func fromEnvironment(_ reader: inout ConfigReader, connectionLimit: Int = 1024) -> EntitlementStreamSettings {
        var settings = EntitlementStreamSettings()
        let wait = reader.duration(.checkoutStreamWait, default: settings.wait)
        if wait < .seconds(1) || wait > .seconds(25) {
            reader.report(.checkoutStreamWait, "must be between 1s and 25s")
        } else {
            settings.wait = wait
        }
        let ceiling = maximumWaiting(connectionLimit: connectionLimit)
        let maxWaiting = reader.int(.checkoutStreamMaxWaiting, default: min(settings.maxWaiting, ceiling), in: 1...100_000)
        if maxWaiting > ceiling {
            reader.report(
                .checkoutStreamMaxWaiting,
                "must be at most \(ceiling), 3/4 of HTTP_MAX_CONNECTIONS (\(connectionLimit)), so waiting polls cannot take the connections every other route needs"
            )
        } else {
            settings.maxWaiting = maxWaiting
        }
        settings.maxPerUser = reader.int(.checkoutStreamMaxPerUser, default: settings.maxPerUser, in: 1...100)
        settings.replayBytes = reader.int(.checkoutStreamReplayBytes, default: settings.replayBytes, in: (1 << 20)...(1 << 30))
        let window = reader.duration(.checkoutStreamReplayWindow, default: settings.replayWindow)
        if window < .seconds(1) || window > .seconds(3600) {
            reader.report(.checkoutStreamReplayWindow, "must be between 1s and 1h")
        } else {
            settings.replayWindow = window
        }
        return settings
    }
}
