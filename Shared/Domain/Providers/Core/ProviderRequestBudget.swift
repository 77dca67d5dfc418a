import Timing
import Synchronization

/// Paces a client's calls to one provider so they stay within its rate limit.
///
/// A client given a budget (``LemonSqueezyClient``/``PaystackClient`` `budget:`)
/// asks it before every attempt, retries included, and tells it when the
/// provider answered 429, so every caller sharing the budget waits, not only
/// the one that was refused.
public protocol ProviderRequestBudget: Sendable {
    /// Waits until one more request may be sent.
    /// - Throws: `CancellationError` when the task is cancelled while waiting.
    func acquire() async throws

    /// The provider refused a request (429) and asked for `delay` (its
    /// `Retry-After`, or the client's backoff when it sent none): no request
    /// is granted before that time has passed.
    func backOff(for delay: Duration)
}

/// A token bucket: at most ``requestsPerMinute`` requests in any 60 seconds,
/// with short bursts of up to ``burst`` requests.
///
/// The refill rate is `(requestsPerMinute − burst) / 60` per second, so a full
/// bucket plus a minute of refill never exceeds the limit, whatever window the
/// provider counts in (fixed or sliding). Waiters are served in the order they
/// asked. A ``backOff(for:)`` empties the bucket and holds every request until
/// the delay has passed. Safe to share between tasks.
public final class RequestBudget: ProviderRequestBudget, CustomStringConvertible {
    /// The limit the bucket keeps to.
    public let requestsPerMinute: Int
    /// Requests that may go out at once after a quiet spell.
    public let burst: Int
    private let bucket: Mutex<TokenBucket>

    /// - Parameters:
    ///   - requestsPerMinute: the provider's limit for this key (at least 1).
    ///   - burst: bucket size; default a twentieth of the limit (at least 1, less than the limit).
    public init(requestsPerMinute: Int, burst: Int? = nil) {
        let limit = max(1, requestsPerMinute)
        let size = min(max(1, burst ?? limit / 20), max(1, limit - 1))
        self.requestsPerMinute = limit
        self.burst = size
        let rate = Double(max(1, limit - size)) / 60
        bucket = Mutex(TokenBucket(ratePerSecond: rate, capacity: Double(size), now: .now))
    }

    public var description: String { "RequestBudget(\(requestsPerMinute)/min, burst \(burst))" }

    public func acquire() async throws {
        var wait = bucket.withLock { $0.reserve(at: .now) }
        while wait > .zero {
            try await Task.sleep(for: wait)
            // A 429 seen by another caller while this one slept holds it too.
            wait = bucket.withLock { $0.pauseRemaining(at: .now) }
        }
    }

    public func backOff(for delay: Duration) {
        bucket.withLock { $0.pause(for: delay, at: .now) }
    }
}

/// The arithmetic of ``RequestBudget``, on explicit instants so it can be tested without waiting.
struct TokenBucket: Sendable {
    let ratePerSecond: Double
    let capacity: Double
    /// May go below zero: each negative unit is a request already promised a later slot.
    private(set) var tokens: Double
    private var updated: ContinuousClock.Instant
    private var pausedUntil: ContinuousClock.Instant?

    init(ratePerSecond: Double, capacity: Double, now: ContinuousClock.Instant) {
        self.ratePerSecond = ratePerSecond
        self.capacity = capacity
        tokens = capacity
        updated = now
    }

    /// Takes one token and returns how long its holder must wait before sending.
    mutating func reserve(at now: ContinuousClock.Instant) -> Duration {
        refill(at: now)
        tokens -= 1
        guard tokens < 0 else { return pauseRemaining(at: now) }
        // Tokens accrue from `updated` (the end of a pause, when one holds).
        let ready = updated + .seconds(-tokens / ratePerSecond)
        return max(ready > now ? ready - now : .zero, pauseRemaining(at: now))
    }

    /// How long a ``pause(for:at:)`` still holds requests.
    func pauseRemaining(at now: ContinuousClock.Instant) -> Duration {
        guard let pausedUntil, pausedUntil > now else { return .zero }
        return pausedUntil - now
    }

    /// Holds requests until `now + delay` and empties the bucket, so traffic
    /// resumes at the refill rate rather than with a burst.
    mutating func pause(for delay: Duration, at now: ContinuousClock.Instant) {
        refill(at: now)
        let until = now + max(delay, .zero)
        pausedUntil = max(pausedUntil ?? until, until)
        tokens = min(tokens, 0)
        // The tokens that refill during the pause are not a licence to burst after it.
        updated = max(updated, until)
    }

    private mutating func refill(at now: ContinuousClock.Instant) {
        guard now > updated else { return }
        let elapsed = now - updated
        tokens = min(capacity, tokens + elapsed.inSeconds * ratePerSecond)
        updated = now
    }
}
