import ServiceSettings

/// The live stream's limits (`GET /api/entitlements/stream`), per checkout replica.
public struct EntitlementStreamSettings: Sendable, Equatable {
    /// How long one poll waits for a change before answering with none
    /// (`CHECKOUT_STREAM_WAIT`, default 25 s, 1 s to 25 s: below the
    /// handler's 30 s deadline and the gateway's read timeout, and short
    /// enough for mobile networks' idle cuts).
    public var wait: Duration
    /// Polls waiting at once at most (`CHECKOUT_STREAM_MAX_WAITING`, default
    /// 2000); more are answered 503 with `Retry-After`, and the app falls back
    /// to reading `/api/entitlements`. A waiting poll holds no thread, only
    /// its connection and a suspended task.
    public var maxWaiting: Int
    /// How long changes stay in memory for a poll that names the last one it
    /// saw (`after`; `CHECKOUT_STREAM_REPLAY_WINDOW`, default 5 min). Older
    /// cursors are answered with `reset`: reread the entitlements.
    public var replayWindow: Duration
    /// Changes kept per user within the window, and in all (bounds memory
    /// whatever the traffic).
    public var replayPerUser: Int
    public var replayTotal: Int

    public init(
        wait: Duration = .seconds(25), maxWaiting: Int = 2000, replayWindow: Duration = .seconds(300), replayPerUser: Int = 32,
        replayTotal: Int = 100_000
    ) {
        self.wait = wait
        self.maxWaiting = maxWaiting
        self.replayWindow = replayWindow
        self.replayPerUser = replayPerUser
        self.replayTotal = replayTotal
    }

    /// Reads the variables above; bad values are reported to `reader`.
    public static func fromEnvironment(_ reader: inout ConfigReader) -> EntitlementStreamSettings {
        var settings = EntitlementStreamSettings()
        let wait = reader.duration(.checkoutStreamWait, default: settings.wait)
        if wait < .seconds(1) || wait > .seconds(25) {
            reader.report(.checkoutStreamWait, "must be between 1s and 25s")
        } else {
            settings.wait = wait
        }
        settings.maxWaiting = reader.int(.checkoutStreamMaxWaiting, default: settings.maxWaiting, in: 1...100_000)
        let window = reader.duration(.checkoutStreamReplayWindow, default: settings.replayWindow)
        if window < .seconds(1) || window > .seconds(3600) {
            reader.report(.checkoutStreamReplayWindow, "must be between 1s and 1h")
        } else {
            settings.replayWindow = window
        }
        return settings
    }
}
