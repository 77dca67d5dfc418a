import Timing

/// When a ``CatalogRefresher`` refreshes next: ``interval`` after a refresh
/// in which every source succeeded, otherwise a doubling backoff from
/// ``initialRetryDelay``, capped by ``maximumRetryDelay`` and ``interval``.
public struct CatalogRefreshSchedule: Sendable, Hashable {
    /// Time between refreshes after a successful one.
    public var interval: Duration
    /// First retry delay after a failed refresh; it doubles on each further failure.
    public var initialRetryDelay: Duration
    /// Longest retry delay; never more than ``interval``.
    public var maximumRetryDelay: Duration

    /// - Parameter maximumRetryDelay: nil for ``interval``.
    public init(interval: Duration, initialRetryDelay: Duration, maximumRetryDelay: Duration? = nil) {
        self.interval = interval
        self.initialRetryDelay = initialRetryDelay
        self.maximumRetryDelay = maximumRetryDelay ?? interval
    }

    /// The wait after a refresh.
    /// - Parameter consecutiveFailures: refreshes in a row with a failing source (0 after a success).
    public func delay(afterConsecutiveFailures consecutiveFailures: Int) -> Duration {
        guard consecutiveFailures > 0 else { return interval }
        let cap = min(maximumRetryDelay, interval)
        return Backoff(initial: min(initialRetryDelay, cap), maximum: cap).delay(afterFailures: consecutiveFailures)
    }
}
