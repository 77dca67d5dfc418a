import Foundation

/// The ledger's fixed windows: ten seconds each, aligned to the epoch so every
/// replica files a request under the same window without talking to the others.
///
/// Why not one-minute windows: a provider that counts a sliding minute would
/// see a full window's worth at the end of one minute and another at the start
/// of the next. Any 60 seconds overlap at most ``windowsPerMinute`` + 1 of
/// these windows, so a per-window ceiling of a seventh of the per-minute limit
/// keeps every 60 seconds within the limit, whatever the provider's own window
/// (at the cost of using at most six sevenths of it when saturated).
public enum LedgerWindow {
    public static let length: Duration = .seconds(10)
    public static let windowsPerMinute = 6

    /// The start of the window holding `instant`.
    public static func start(of instant: Date) -> Date {
        let seconds = length.inWholeSeconds
        return Date(timeIntervalSince1970: (instant.timeIntervalSince1970 / Double(seconds)).rounded(.down) * Double(seconds))
    }

    /// How long from `instant` until the next window opens (never zero, so a
    /// refused caller always sleeps before asking again).
    public static func untilNext(after instant: Date) -> Duration {
        let next = start(of: instant).addingTimeInterval(Double(length.inWholeSeconds))
        return max(.milliseconds(1), .milliseconds(Int64((next.timeIntervalSince(instant) * 1000).rounded(.up))))
    }
}

extension Duration {
    /// Whole seconds (the windows are whole seconds long).
    var inWholeSeconds: Int64 { components.seconds }
}
