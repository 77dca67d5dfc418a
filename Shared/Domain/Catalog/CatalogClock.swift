import Timing

/// Monotonic seconds for the catalog's age, injectable so tests can move
/// time forward without sleeping.
public struct CatalogClock: Sendable {
    /// Seconds since an arbitrary fixed origin; never goes backwards.
    public let now: @Sendable () -> Double

    public init(now: @escaping @Sendable () -> Double) {
        self.now = now
    }

    /// The process's monotonic clock (not wall time, so a clock step on the
    /// host cannot make the catalog look younger or older than it is).
    public static let continuous: CatalogClock = {
        let origin = ContinuousClock.now
        return CatalogClock { (ContinuousClock.now - origin).inSeconds }
    }()
}
