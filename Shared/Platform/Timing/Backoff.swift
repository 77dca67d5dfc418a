/// Exponential backoff: ``initial`` after the first failure, doubling after
/// each further one, never more than ``maximum``. The one retry schedule
/// every loop uses (start-up, batches, publishes, catalog refreshes, HTTP
/// retries), so "how long until the next try" reads the same everywhere.
public struct Backoff: Sendable, Hashable {
    /// The delay after the first failure.
    public let initial: Duration
    /// The longest delay.
    public let maximum: Duration

    /// A `maximum` below `initial` is raised to it; a zero or negative
    /// `initial` means no wait at all (a settings mistake must not crash a retry loop).
    public init(initial: Duration, maximum: Duration) {
        self.initial = max(initial, .zero)
        self.maximum = max(maximum, self.initial)
    }

    /// The delay after `failures` failures in a row: `initial × 2^(failures − 1)`,
    /// at most ``maximum``; `.zero` for no failure.
    public func delay(afterFailures failures: Int) -> Duration {
        guard failures > 0, initial > .zero else { return .zero }
        var delay = initial
        for _ in 1..<min(failures, 64) {
            delay *= 2
            if delay >= maximum { return maximum }
        }
        return delay
    }

    /// ``delay(afterFailures:)`` scaled by a uniform random factor in 0...1
    /// ("full jitter"), so clients that failed together do not retry together.
    public func jitteredDelay(afterFailures failures: Int) -> Duration {
        delay(afterFailures: failures) * Double.random(in: 0...1)
    }
}

/// A loop's running count of failures in a row, against its ``Backoff``.
public struct BackoffCounter: Sendable {
    public let schedule: Backoff
    /// Failures since the last success.
    public private(set) var failures = 0

    public init(_ schedule: Backoff) { self.schedule = schedule }

    /// Counts a failure and returns how long to wait before the next try.
    public mutating func failed() -> Duration {
        failures += 1
        return schedule.delay(afterFailures: failures)
    }

    /// Starts over after a success.
    public mutating func succeeded() { failures = 0 }
}
