import ServiceSettings
import Foundation

/// When a failed delivery is tried again: after each failed attempt, the
/// next delay of the schedule, scaled by a random factor within ±``jitter``
/// so that a receiver coming back is not hit by every retry at once; after
/// the last one the delivery is dead-lettered (`storefront endpoints replay`
/// sends it again).
///
/// The default follows the schedule common among Standard Webhooks senders:
/// 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after the first attempt (eight
/// attempts over about 27.6 hours).
public struct RetrySchedule: Sendable, Hashable {
    /// The wait before each retry; its count is the number of retries.
    public var delays: [Duration]
    /// The largest share by which a delay is moved either way (0.2: ±20 %).
    public var jitter: Double

    public static let `default` = RetrySchedule(
        delays: [.seconds(5), .seconds(300), .seconds(1800), .seconds(7200), .seconds(18_000), .seconds(36_000), .seconds(36_000)])

    public init(delays: [Duration], jitter: Double = 0.2) {
        self.delays = delays
        self.jitter = min(max(jitter, 0), 1)
    }

    /// Attempts in all: the first plus one per delay.
    public var maximumAttempts: Int { delays.count + 1 }

    /// The wait after `attempts` failed attempts, before jitter; nil when the
    /// schedule is spent (the delivery is dead).
    public func baseDelay(afterFailedAttempts attempts: Int) -> Duration? {
        guard attempts >= 1, attempts <= delays.count else { return nil }
        return delays[attempts - 1]
    }

    /// ``baseDelay(afterFailedAttempts:)`` moved by a factor in `1 ± jitter`;
    /// `random` (0...1) is injected so tests can pin it.
    public func delay(afterFailedAttempts attempts: Int, random: Double = Double.random(in: 0...1)) -> Duration? {
        guard let base = baseDelay(afterFailedAttempts: attempts) else { return nil }
        return base * (1 + jitter * (2 * min(max(random, 0), 1) - 1))
    }

    /// `WEBHOOK_SENDER_RETRY_SCHEDULE`: comma-separated positive durations (`5s,5m,30m`).
    public static var parser: ConfigValueParser<RetrySchedule> {
        let delays = ConfigValueParser<[Duration]>.list(of: .duration)
        return ConfigValueParser(expected: "a comma-separated list of positive durations (e.g. 5s,5m,30m)") { text in
            guard let values = delays.value(of: text), !values.isEmpty, values.allSatisfy({ $0 > .zero }) else { return nil }
            return RetrySchedule(delays: values)
        }
    }
}
