import Synchronization

/// A counter whose total is read from somewhere else (the kernel's CPU time,
/// a library's byte count) rather than counted here, so it may be fractional.
///
/// Prometheus requires a counter never to go down except on restart; a
/// sample lower than the last one (a source that was reset, a race between
/// two readers) is therefore ignored, and the series keeps its highest value.
public final class SampledCounter: Sendable {
    private let value = Mutex<Double>(0)

    init() {}

    /// Records the source's current total.
    public func record(total: Double) {
        guard total.isFinite else { return }
        value.withLock { $0 = max($0, total) }
    }

    /// The highest total recorded so far.
    public var current: Double { value.withLock { $0 } }
}
