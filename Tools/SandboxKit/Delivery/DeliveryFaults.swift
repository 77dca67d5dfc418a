/// Faults applied to upcoming deliveries, set through `POST /_sandbox/faults`.
///
/// Failures are simulated: the sandbox records the attempt as failed (status 500,
/// `simulated: true`) without sending anything, then retries on the provider's
/// schedule, so the receiver sees only the later, successful attempt.
public struct DeliveryFaults: Sendable, Equatable {
    /// The next N webhooks are each sent twice (same bytes, same signature).
    public var duplicateNext: Int = 0
    /// The next batch (the webhooks of one purchase or one control) is sent in a shuffled order.
    public var shuffleNextBatch: Bool = false
    /// Wait this long before each first attempt, until reset to 0 (real time, not scaled).
    public var delayMilliseconds: Int = 0
    /// The next N attempts fail without being sent.
    public var failNextAttempts: Int = 0

    public init(duplicateNext: Int = 0, shuffleNextBatch: Bool = false, delayMilliseconds: Int = 0, failNextAttempts: Int = 0) {
        self.duplicateNext = duplicateNext
        self.shuffleNextBatch = shuffleNextBatch
        self.delayMilliseconds = delayMilliseconds
        self.failNextAttempts = failNextAttempts
    }

    var json: JSONValue {
        [
            "duplicate_next": .int(duplicateNext),
            "shuffle_next_batch": .bool(shuffleNextBatch),
            "delay_ms": .int(delayMilliseconds),
            "fail_next_attempts": .int(failNextAttempts),
        ]
    }
}

/// A small deterministic generator (SplitMix64) so a shuffle is repeatable for a seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
