/// How far a consumer group is behind on one topic, partition by partition.
public struct KafkaConsumerGroupLag: Sendable, Hashable {
    /// One partition's watermarks, committed offset and lag.
    public struct Partition: Sendable, Hashable {
        /// The partition number.
        public var partition: Int32
        /// The oldest offset the broker still holds.
        public var lowWatermark: Int64
        /// The offset the next produced record will get.
        public var highWatermark: Int64
        /// The group's committed offset (the next record it will read), or
        /// `nil` when the group has committed nothing for this partition.
        public var committedOffset: Int64?

        /// Records the group has not committed yet: high watermark minus the
        /// committed offset, or minus the low watermark when nothing is
        /// committed (where a group starting from the earliest offset begins).
        public var lag: Int64 { max(0, highWatermark - (committedOffset ?? lowWatermark)) }

        /// Creates a partition's figures.
        public init(partition: Int32, lowWatermark: Int64, highWatermark: Int64, committedOffset: Int64?) {
            self.partition = partition
            self.lowWatermark = lowWatermark
            self.highWatermark = highWatermark
            self.committedOffset = committedOffset
        }
    }

    /// The consumer group.
    public var groupID: String
    /// The topic.
    public var topic: String
    /// Every partition of the topic, in partition order.
    public var partitions: [Partition]

    /// The sum of every partition's lag.
    public var totalLag: Int64 { partitions.reduce(0) { $0 + $1.lag } }

    /// Creates a lag report.
    public init(groupID: String, topic: String, partitions: [Partition]) {
        self.groupID = groupID
        self.topic = topic
        self.partitions = partitions
    }
}
