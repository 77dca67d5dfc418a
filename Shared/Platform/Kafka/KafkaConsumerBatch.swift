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

    /// The same batch for ``KafkaConsumer/commit(_:)`` only: one record per
    /// partition, the last, without key, value or headers, so it commits
    /// exactly what this batch would.
    ///
    /// For a caller that holds batches long after reading their records: the
    /// reconciler keeps up to 64 of 500 records while provider fetches wait
    /// for their budget, and holding the records' values kept about 115 MB
    /// of webhook envelopes alive after 20,000 webhooks (a heap profile,
    /// docs/testing-and-benchmarks.md, issue 22).
    public func positionsOnly() -> KafkaConsumerBatch {
        var last: [KafkaTopicPartition: KafkaConsumerRecord] = [:]
        for record in records where record.offset >= last[record.topicPartition]?.offset ?? .min {
            last[record.topicPartition] = KafkaConsumerRecord(
                topic: record.topic, partition: record.partition, offset: record.offset, key: nil, value: nil)
        }
        let kept = last.values.sorted { ($0.topic, $0.partition) < ($1.topic, $1.partition) }
        return KafkaConsumerBatch(records: kept, consumerID: consumerID, assignmentEpochs: assignmentEpochs)
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
