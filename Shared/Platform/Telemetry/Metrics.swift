import Synchronization

/// A monotonically increasing count (requests served, records applied).
public final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    init() {}

    public func increment(by amount: Int = 1) {
        precondition(amount >= 0, "a counter never goes down")
        value.wrappingAdd(amount, ordering: .relaxed)
    }

    public var current: Int { value.load(ordering: .relaxed) }
}

/// A value that goes up and down (in-flight requests, consumer lag).
public final class Gauge: Sendable {
    private let value = Mutex<Double>(0)

    init() {}

    public func set(_ newValue: Double) { value.withLock { $0 = newValue } }
    public func add(_ delta: Double) { value.withLock { $0 += delta } }
    public var current: Double { value.withLock { $0 } }
}

/// Counts observations into cumulative buckets (latencies, batch sizes).
public final class Histogram: Sendable {
    /// Upper bounds, ascending; `+Inf` is implied.
    public let buckets: [Double]
    private let state: Mutex<(counts: [Int], sum: Double, count: Int)>

    /// Seconds from 1 ms to 10 s: fits HTTP handlers and database batches.
    public static let defaultLatencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    init(buckets: [Double]) {
        self.buckets = buckets.sorted()
        state = Mutex((Array(repeating: 0, count: buckets.count), 0, 0))
    }

    public func observe(_ value: Double) {
        let index = buckets.firstIndex { value <= $0 }
        state.withLock { state in
            if let index { state.counts[index] += 1 }
            state.sum += value
            state.count += 1
        }
    }

    /// Bucket counts (non-cumulative), sum and count, read together.
    var snapshot: (counts: [Int], sum: Double, count: Int) { state.withLock { $0 } }
}
