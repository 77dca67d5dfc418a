/// `Duration` in the units other APIs take. Swift's `Duration` holds seconds
/// and attoseconds; these conversions are written once, here.
extension Duration {
    /// The duration in fractional seconds: for metrics, JSON and Foundation's `TimeInterval`.
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Whole milliseconds, rounded toward zero: for `*.ms` settings.
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
