import Synchronization

/// A Kafka consumer in a consumer group, handing out records in batches and
/// committing offsets only when told to.
///
/// Delivery is at-least-once: a batch counts as processed only after
/// ``commit(_:)``. After a crash, a `close()` without commit, or a
/// rebalance, the uncommitted records are read again (by this member or the
/// partition's new owner), so processing must be idempotent.
///
/// Rebalances use the eager protocol: every member gives up all partitions,
/// then receives its new share. On revocation, records polled but not yet
/// handed out are dropped (the new owner reads them), and a batch handed
/// out before the revocation can no longer commit those partitions:
/// ``commit(_:)`` skips them and says so in ``KafkaCommitResult/skipped``.
///
/// All librdkafka calls (poll, rebalance callback, commit, close) run on the
/// consumer's own thread, in order, so a rebalance never interleaves with a commit.
public final class KafkaConsumer: Sendable {
    private let loop: RDKafkaConsumerLoop

    /// Creates a consumer, joins `configuration.groupID` and subscribes to `topics`.
    /// Joining completes in the background while batches are requested.
    /// - Throws: ``KafkaError/Code/libraryTooOld``, ``KafkaError/Code/invalidArgument``,
    ///   ``KafkaError/Code/invalidConfiguration``, ``KafkaError/Code/clientCreationFailed``
    ///   or ``KafkaError/Code/subscriptionFailed``.
    public init(topics: [String], configuration: KafkaConsumerConfiguration) throws {
        try KafkaRuntime.checkLibraryVersion()
        try configuration.validate()
        guard !topics.isEmpty else {
            throw KafkaError(.invalidArgument, reason: "a consumer needs at least one topic")
        }
        let state = RDKafkaConsumerState(logHandler: configuration.client.logHandler, offsetGapRecheck: configuration.offsetGapRecheck)
        let client = try RDKafkaClient(
            kind: .consumer, properties: configuration.properties, context: state, callbacks: [.rebalance, .errors])
        try client.subscribe(topics)
        loop = RDKafkaConsumerLoop(client: client, state: state, configuration: configuration)
        loop.start()
    }

    deinit {
        // Leave the group even when the owner forgot close(); nobody waits for it.
        loop.submit(.close(nil))
    }

    /// The batches, in order. Ends (returns `nil`) once the consumer is closed.
    public var batches: KafkaConsumerBatches { KafkaConsumerBatches(consumer: self) }

    /// The partitions this member owns right now (changes with rebalances).
    public var assignment: Set<KafkaTopicPartition> {
        loop.state.publishedAssignment.withLock { $0 }
    }

    /// Waits for the next non-empty batch.
    /// - Returns: the batch, or `nil` once the consumer is closed.
    /// - Throws: `CancellationError` when the task is cancelled (no records are lost).
    public func nextBatch() async throws -> KafkaConsumerBatch? {
        try await requestBatch(giveUpAfter: nil)
    }

    /// Waits up to `timeout` for the next batch.
    /// - Returns: the batch, or `nil` when no record arrived in time.
    /// - Throws: ``KafkaError/Code/shutDown`` when the consumer is closed, or
    ///   `CancellationError`.
    public func nextBatch(timeout: Duration) async throws -> KafkaConsumerBatch? {
        guard let batch = try await requestBatch(giveUpAfter: max(timeout, .zero)) else {
            throw KafkaError(.shutDown, reason: "the consumer is closed")
        }
        return batch.records.isEmpty ? nil : batch
    }

    /// Commits, synchronously on the consumer's thread, the offset after the
    /// last record of each partition in `batch`.
    ///
    /// Partitions revoked since the batch was handed out, or already committed
    /// to an equal or later offset, are skipped, never committed: their
    /// records will be read again by their current owner.
    /// - Returns: what was committed and what was skipped, and why.
    /// - Throws: ``KafkaError/Code/commitFailed``, ``KafkaError/Code/foreignBatch``
    ///   (the batch came from another consumer) or ``KafkaError/Code/shutDown``.
    @discardableResult
    public func commit(_ batch: KafkaConsumerBatch) async throws -> KafkaCommitResult {
        try await withCheckedThrowingContinuation { waiter in
            loop.submit(.commit(batch, waiter))
        }
    }

    /// Leaves the consumer group and stops fetching. Uncommitted records are
    /// read again by the partitions' next owners. Safe to call twice.
    public func close() async {
        await withCheckedContinuation { waiter in
            loop.submit(.close(waiter))
        }
    }

    private func requestBatch(giveUpAfter: Duration?) async throws -> KafkaConsumerBatch? {
        let id = loop.makeRequestID()
        let loop = loop
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { waiter in
                loop.submit(.batch(id: id, giveUpAfter: giveUpAfter, waiter))
            }
        } onCancel: {
            loop.submit(.cancelBatch(id: id))
        }
    }
}

/// The batches of a ``KafkaConsumer`` as an `AsyncSequence`; ends when the
/// consumer is closed.
public struct KafkaConsumerBatches: AsyncSequence, Sendable {
    public typealias Element = KafkaConsumerBatch
    let consumer: KafkaConsumer

    /// Iterates the batches by calling ``KafkaConsumer/nextBatch()``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let consumer: KafkaConsumer
        /// The next non-empty batch, or `nil` once the consumer is closed.
        public mutating func next() async throws -> KafkaConsumerBatch? {
            try await consumer.nextBatch()
        }
    }

    /// Creates an iterator over the consumer's batches.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(consumer: consumer)
    }
}
