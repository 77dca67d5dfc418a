/// Up to ``KafkaConsumerConfiguration/maxBatchSize`` records handed out
/// together. Process them, then pass the batch to ``KafkaConsumer/commit(_:)``.
public struct KafkaConsumerBatch: Sendable {
    /// The records, in the order they were read (in offset order per partition).
    public let records: [KafkaConsumerRecord]
    /// Identifies the consumer that handed the batch out.
    let consumerID: UInt64
    /// For each partition in the batch: the assignment it was read under, so
    /// a commit can tell whether the partition was revoked since.
    let assignmentEpochs: [KafkaTopicPartition: UInt64]

    /// The offset to commit per partition: one past the last record read.
    public var nextOffsets: [KafkaTopicPartition: Int64] {
        var result: [KafkaTopicPartition: Int64] = [:]
        for record in records {
            result[record.topicPartition] = max(result[record.topicPartition] ?? 0, record.offset + 1)
        }
        return result
    }
}

/// What ``KafkaConsumer/commit(_:)`` did with each partition of a batch.
///
/// A partition that was revoked after the batch was handed out is never
/// committed: its new owner starts at the last committed offset and processes
/// those records again (at-least-once), so the application's writes must be
/// idempotent.
public struct KafkaCommitResult: Sendable, Hashable {
    /// Why a partition of a batch was not committed.
    public enum SkipReason: Sendable, Hashable {
        /// The partition was revoked (or reassigned) after the batch was handed out.
        case revoked
        /// An equal or later offset was already committed for the partition.
        case alreadyCommitted
        /// The broker refused the commit because the group is rebalancing;
        /// the partition will be redelivered to whoever owns it next.
        case rebalanceInProgress
    }

    /// Partitions committed, with the offset stored (one past the last record).
    public var committed: [KafkaTopicPartition: Int64]
    /// Partitions not committed, with the reason.
    public var skipped: [KafkaTopicPartition: SkipReason]

    /// Whether every partition of the batch was committed.
    public var isComplete: Bool { skipped.isEmpty }
}
