import Foundation

/// The arithmetic of fixed quota windows, on explicit instants so it is tested without waiting.
///
/// Windows are aligned to the epoch, so every replica counts a request in the
/// same window without coordination beyond the shared row. A fixed window lets
/// a caller spend one window's quota at its end and the next one's at the
/// next start; for per-user quotas that bounded burst (twice the limit, once)
/// is accepted for the one-row-per-request cost.
enum QuotaWindow {
    /// The start of the `window`-long window holding `instant`.
    static func start(of instant: Date, window: Duration) -> Date {
        let seconds = Double(max(1, window.components.seconds))
        return Date(timeIntervalSince1970: (instant.timeIntervalSince1970 / seconds).rounded(.down) * seconds)
    }

    /// Whole seconds from `instant` until its window ends (at least 1): the `Retry-After` of a refusal.
    static func retryAfter(at instant: Date, window: Duration) -> Int {
        let end = start(of: instant, window: window).addingTimeInterval(Double(max(1, window.components.seconds)))
        return max(1, Int(end.timeIntervalSince(instant).rounded(.up)))
    }
}
