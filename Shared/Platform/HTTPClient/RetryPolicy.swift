import Timing
import Foundation

/// When and how long to wait before repeating a failed request.
///
/// Delays use exponential backoff with full jitter: before retry *n* (1-based)
/// the client sleeps a uniformly random time in `0 ... min(maxDelay, baseDelay × 2ⁿ⁻¹)`,
/// which spreads out many clients that failed at the same moment. A
/// `Retry-After` header on a retryable response replaces that delay, as the
/// server knows best; if it asks for more than `maxRetryAfter` the client stops
/// retrying and returns the response instead of sleeping a long time.
///
/// Only idempotent requests are retried (see ``HTTPClientRequest/idempotent``).
public struct RetryPolicy: Sendable, Equatable {
    /// Total attempts including the first; 1 disables retries.
    public var maxAttempts: Int
    /// The backoff cap before the first retry; doubles each retry.
    public var baseDelay: Duration
    /// The largest backoff cap.
    public var maxDelay: Duration
    /// The largest `Retry-After` the client will honour by waiting.
    public var maxRetryAfter: Duration
    /// Response statuses that are retried.
    public var retryableStatuses: Set<Int>

    /// Creates a policy.
    /// - Parameters:
    ///   - maxAttempts: total attempts including the first (at least 1). Default 3.
    ///   - baseDelay: backoff cap before the first retry. Default 200 ms.
    ///   - maxDelay: largest backoff cap. Default 5 s.
    ///   - maxRetryAfter: largest `Retry-After` honoured. Default 30 s.
    ///   - retryableStatuses: statuses that are retried. Default 429, 502, 503, 504.
    public init(
        maxAttempts: Int = 3,
        baseDelay: Duration = .milliseconds(200),
        maxDelay: Duration = .seconds(5),
        maxRetryAfter: Duration = .seconds(30),
        retryableStatuses: Set<Int> = [429, 502, 503, 504]
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.retryableStatuses = retryableStatuses
    }

    /// The default policy: 3 attempts, 200 ms base, 5 s cap, `Retry-After` up to 30 s.
    public static let `default` = RetryPolicy()

    /// Never retry.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The jittered backoff before retry number `retry` (1 for the first retry).
    public func backoff(beforeRetry retry: Int) -> Duration {
        guard baseDelay > .zero else { return .zero }
        return Backoff(initial: baseDelay, maximum: max(maxDelay, baseDelay)).jitteredDelay(afterFailures: max(retry, 1))
    }
}

// MARK: - Retry-After

extension RetryPolicy {
    /// Parses a `Retry-After` value: delta-seconds or an HTTP date (RFC 9110 §10.2.3).
    /// A date in the past means "now". Returns `nil` when the value is neither.
    public static func parseRetryAfter(_ value: String, now: Date = Date()) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.allSatisfy(\.isASCIIDigit) {
            // Clamp absurd values before converting, so a huge number cannot overflow.
            guard let seconds = Int64(trimmed.prefix(12)) else { return nil }
            return .seconds(seconds)
        }
        guard let date = httpDate(trimmed) else { return nil }
        let delta = date.timeIntervalSince(now)
        return delta <= 0 ? .zero : .milliseconds(Int64((delta * 1000).rounded(.up)))
    }

    /// IMF-fixdate, plus the two obsolete forms RFC 9110 says recipients must accept.
    private static func httpDate(_ text: String) -> Date? {
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
