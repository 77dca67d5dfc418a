import Timing

/// Settings for a ``KafkaConsumer``. Offsets are only ever committed
/// explicitly (``KafkaConsumer/commit(_:)``): `enable.auto.commit` and
/// `enable.auto.offset.store` are off, so a record counts as processed only
/// after the application says so (at-least-once delivery).
///
/// Partitions are assigned with the eager protocol (`roundrobin`): on every
/// rebalance a member gives up all its partitions, then receives its new share.
/// Eager is the simplest to reason about: a batch in flight during any
/// rebalance is never committed, and its records are read again. Setting
/// `partition.assignment.strategy` to `cooperative-sticky` through
/// ``KafkaClientConfiguration/extraProperties`` also works (the rebalance
/// callback then assigns and revokes incrementally, and only the revoked
/// partitions of a batch are skipped).
public struct KafkaConsumerConfiguration: Sendable {
    /// Brokers, client id, log handler and raw overrides.
    public var client: KafkaClientConfiguration
    /// The consumer group (`group.id`). No default.
    public var groupID: String
    /// How long the group waits for a silent member before reassigning its
    /// partitions (`session.timeout.ms`). Default 6 seconds rather than
    /// librdkafka's 45: Tansu holds a new group's first join for about half of
    /// this value, so the default would delay every fresh start by ~23 s.
    public var sessionTimeout: Duration
    /// How often the member tells the group it is alive (`heartbeat.interval.ms`).
    /// Must be well below ``sessionTimeout``. Default 1 second, so rebalances
    /// are noticed quickly.
    public var heartbeatInterval: Duration
    /// Where a group with no committed offset starts reading (`auto.offset.reset`).
    /// Default ``KafkaAutoOffsetReset/earliest``: a new group sees every retained record.
    public var autoOffsetReset: KafkaAutoOffsetReset
    /// Most records in one ``KafkaConsumerBatch``. Default 100; must be 1...100 000.
    public var maxBatchSize: Int
    /// How long a batch may wait to fill once it was asked for; a batch is
    /// handed out when full, or after this wait if it holds at least one
    /// record. Default 100 milliseconds.
    public var maxBatchWait: Duration
    /// How long a gap in a partition's offsets is read again before it is
    /// accepted and logged; `nil` hands records out as fetched. Default 2
    /// seconds. Offsets of the topics Storefront consumes are contiguous
    /// (no compaction, no transactions), so a gap means records the broker
    /// acknowledged but did not show yet (Tansu 0.6 does this under
    /// concurrent producers; see `OffsetGapTracker`). Set `nil` for
    /// compacted or transactional topics, whose gaps are real.
    public var offsetGapRecheck: Duration?
    /// The longest a fetch request may wait at the broker for records to
    /// arrive (`fetch.wait.max.ms`). Default 25 ms, against librdkafka's 500:
    /// Tansu 0.6 holds a fetch for this long even when some of the requested
    /// partitions have records, which measured as a 500 ms stall in one of
    /// every ten batches of a backlog and as seconds of webhook → status
    /// latency at 1,000 webhooks/s. A broker that answers as soon as records
    /// arrive only sees more requests while the topic is idle.
    public var fetchMaxWait: Duration

    /// Creates a consumer configuration with the documented defaults.
    public init(
        client: KafkaClientConfiguration,
        groupID: String,
        sessionTimeout: Duration = .milliseconds(6000),
        heartbeatInterval: Duration = .milliseconds(1000),
        autoOffsetReset: KafkaAutoOffsetReset = .earliest,
        maxBatchSize: Int = 100,
        maxBatchWait: Duration = .milliseconds(100),
        offsetGapRecheck: Duration? = .seconds(2),
        fetchMaxWait: Duration = .milliseconds(25)
    ) {
        self.client = client
        self.groupID = groupID
        self.sessionTimeout = sessionTimeout
        self.heartbeatInterval = heartbeatInterval
        self.autoOffsetReset = autoOffsetReset
        self.maxBatchSize = maxBatchSize
        self.maxBatchWait = maxBatchWait
        self.offsetGapRecheck = offsetGapRecheck
        self.fetchMaxWait = fetchMaxWait
    }

    /// Checks the values librdkafka cannot check for us.
    func validate() throws {
        guard (1...100_000).contains(maxBatchSize) else {
            throw KafkaError(.invalidArgument, reason: "maxBatchSize must be 1...100000, got \(maxBatchSize)")
        }
        guard maxBatchWait >= .zero else {
            throw KafkaError(.invalidArgument, reason: "maxBatchWait must not be negative")
        }
        guard fetchMaxWait >= .milliseconds(1) else {
            throw KafkaError(.invalidArgument, reason: "fetchMaxWait must be at least 1 ms")
        }
        if let offsetGapRecheck, offsetGapRecheck <= .zero {
            throw KafkaError(.invalidArgument, reason: "offsetGapRecheck must be positive (or nil to hand out records as fetched)")
        }
        guard !groupID.isEmpty else {
            throw KafkaError(.invalidArgument, reason: "groupID must not be empty")
        }
    }

    /// The librdkafka properties for this configuration, overrides last.
    var properties: [String: String] {
        var result = client.properties
        result["group.id"] = groupID
        result["enable.auto.commit"] = "false"
        result["enable.auto.offset.store"] = "false"
        result["session.timeout.ms"] = String(sessionTimeout.wholeMilliseconds)
        result["heartbeat.interval.ms"] = String(heartbeatInterval.wholeMilliseconds)
        result["auto.offset.reset"] = autoOffsetReset.rawValue
        result["fetch.wait.max.ms"] = String(fetchMaxWait.wholeMilliseconds)
        result["queued.max.messages.kbytes"] = String(max(1, client.consumerPrefetchBytes >> 10))
        result["partition.assignment.strategy"] = "roundrobin"
        // librdkafka's consumer default, said out loud: a subscription to a topic the
        // broker lost must not re-create it with the broker's defaults (Tansu: 4
        // partitions); the producers re-create it as declared (KafkaTopicKeeper).
        result["allow.auto.create.topics"] = "false"
        result.merge(client.extraProperties) { _, override in override }
        return result
    }
}

/// Where a consumer group without a committed offset starts reading.
public enum KafkaAutoOffsetReset: String, Sendable {
    /// The oldest retained record.
    case earliest
    /// Only records produced after the group joined.
    case latest
}
