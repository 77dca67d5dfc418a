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
    /// Every delivery about these subscriptions is dropped, until the faults
    /// are replaced: `lemonsqueezy:<subscription id>`, `paystack:<SUB_ code>`.
    /// Nothing is sent and nothing is retried (as when a provider gave up),
    /// so only a reconciliation can learn what happened.
    public var dropSubscriptions: Set<String> = []
    /// As ``dropSubscriptions``, for whatever the checkout produces (its order
    /// or transaction, its subscription and everything that follows), named
    /// before it is paid: `lemonsqueezy:<checkout id>`, `paystack:<access code or reference>`.
    public var dropCheckouts: Set<String> = []

    public init(
        duplicateNext: Int = 0, shuffleNextBatch: Bool = false, delayMilliseconds: Int = 0, failNextAttempts: Int = 0,
        dropSubscriptions: Set<String> = [], dropCheckouts: Set<String> = []
    ) {
        self.duplicateNext = duplicateNext
        self.shuffleNextBatch = shuffleNextBatch
        self.delayMilliseconds = delayMilliseconds
        self.failNextAttempts = failNextAttempts
        self.dropSubscriptions = dropSubscriptions
        self.dropCheckouts = dropCheckouts
    }

    /// Whether a delivery about `subjects` (see ``DeliverySubjects``) is dropped.
    func drops(_ subjects: DeliverySubjects) -> Bool {
        !dropSubscriptions.isDisjoint(with: subjects.subscriptions) || !dropCheckouts.isDisjoint(with: subjects.checkouts)
    }

    var jsonFields: [JSONField] {
        [
            JSONField(key: "duplicate_next", value: .int(duplicateNext)),
            JSONField(key: "shuffle_next_batch", value: .bool(shuffleNextBatch)),
            JSONField(key: "delay_ms", value: .int(delayMilliseconds)),
            JSONField(key: "fail_next_attempts", value: .int(failNextAttempts)),
            JSONField(key: "drop_subscriptions", value: .array(dropSubscriptions.sorted().map(JSONValue.string))),
            JSONField(key: "drop_checkouts", value: .array(dropCheckouts.sorted().map(JSONValue.string))),
        ]
    }

    var json: JSONValue { .object(jsonFields) }
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
