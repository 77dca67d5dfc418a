/// Proof that the broker acknowledged a record (with `acks=all`: all in-sync
/// replicas have it).
public struct KafkaDeliveryReport: Sendable, Hashable {
    /// The topic the record was written to.
    public var topic: String
    /// The partition the record was written to.
    public var partition: Int32
    /// The record's offset in that partition.
    public var offset: Int64

    /// Creates a report (for tests and fakes; producers make their own).
    public init(topic: String, partition: Int32, offset: Int64) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }
}

/// A record librdkafka gave up on, with the reason.
public struct KafkaUndeliveredMessage: Sendable {
    /// The record as it was sent (rebuilt from librdkafka's copy).
    public var message: KafkaProducerMessage
    /// Why it was not delivered.
    public var error: KafkaError
}

/// Running totals of a producer's delivery reports.
public struct KafkaProducerCounters: Sendable, Hashable {
    /// Records the broker acknowledged.
    public var delivered: Int
    /// Records that failed (timed out, rejected, purged at shutdown).
    public var failed: Int

    /// Creates counters.
    public init(delivered: Int, failed: Int) {
        self.delivered = delivered
        self.failed = failed
    }

    /// Both totals summed.
    func adding(_ other: KafkaProducerCounters) -> KafkaProducerCounters {
        KafkaProducerCounters(delivered: delivered + other.delivered, failed: failed + other.failed)
    }
}

/// What ``KafkaProducer/sendInOrderAndAwait(_:)`` achieved: the messages
/// the broker acknowledged from the first on, and the failure that ended them.
public struct KafkaOrderedDelivery: Sendable {
    /// How many of the first messages were acknowledged (all of them before ``failure``).
    public var acknowledged: Int
    /// The first message's failure, in the messages' order; nil when every one was acknowledged.
    public var failure: KafkaError?

    /// Creates a result (for tests and fakes; producers make their own).
    public init(acknowledged: Int, failure: KafkaError?) {
        self.acknowledged = acknowledged
        self.failure = failure
    }
}
