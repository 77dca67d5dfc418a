import Timing
internal import CRdKafka
import Dispatch
import Foundation
import Synchronization

/// Runs one consumer on a dedicated thread: polls librdkafka, assembles
/// batches on demand, commits, and closes. Everything that touches the
/// consumer's group state happens on this one thread, so a rebalance can
/// never interleave with a commit.
///
/// `@unchecked Sendable`: `consumerQueue` is an `rd_kafka_queue_t`, which
/// librdkafka documents as thread-safe (other threads only call
/// `rd_kafka_queue_yield` on it); `state` is confined to the loop thread (see
/// ``RDKafkaConsumerState``); the inbox is a `Mutex`.
final class RDKafkaConsumerLoop: @unchecked Sendable {
    typealias BatchWaiter = CheckedContinuation<KafkaConsumerBatch?, any Error>
    typealias CommitWaiter = CheckedContinuation<KafkaCommitResult, any Error>

    enum Command {
        /// Hand out the next batch; with `giveUpAfter`, an empty batch when nothing arrives in time.
        case batch(id: UInt64, giveUpAfter: Duration?, BatchWaiter)
        case cancelBatch(id: UInt64)
        case commit(KafkaConsumerBatch, CommitWaiter)
        case close(CheckedContinuation<Void, Never>?)
    }

    private struct Inbox {
        var commands: [Command] = []
        var finished = false
        var nextRequestID: UInt64 = 1
    }

    private struct Demand {
        var id: UInt64
        var waiter: BatchWaiter
        var fillDeadline: ContinuousClock.Instant
        var giveUpDeadline: ContinuousClock.Instant?
    }

    private static let consumerIDs = Atomic<UInt64>(1)

    let consumerID: UInt64
    let state: RDKafkaConsumerState
    let client: RDKafkaClient
    private let consumerQueue: OpaquePointer
    private let inbox = Mutex(Inbox())
    private let wake = DispatchSemaphore(value: 0)
    private let maxBatchSize: Int
    private let maxBatchWait: Duration
    private let autoOffsetReset: KafkaAutoOffsetReset
    let clock = ContinuousClock()
    /// How often, after a broker loss, the loop checks whether the topics are
    /// back (see ``rejoinAfterBrokerLoss()``), and how long it waits for them.
    static let rejoinCheckInterval: Duration = .seconds(1)
    static let rejoinPatience: Duration = .seconds(300)
    private var nextRejoinCheck = ContinuousClock.now
    /// When ``restartLogsThatLostRecords()`` looks next.
    var nextLogLengthCheck = ContinuousClock.now
    /// The group's committed offset of each owned partition when it was assigned, by assignment epoch.
    var committedAtAssignment: [KafkaTopicPartition: (epoch: UInt64, offset: Int64)] = [:]

    init(client: RDKafkaClient, state: RDKafkaConsumerState, configuration: KafkaConsumerConfiguration) {
        self.client = client
        self.state = state
        consumerQueue = rd_kafka_queue_get_consumer(client.handle)
        maxBatchSize = configuration.maxBatchSize
        maxBatchWait = configuration.maxBatchWait
        autoOffsetReset = configuration.autoOffsetReset
        consumerID = Self.consumerIDs.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "kafka-consumer"
        thread.start()
    }

    // MARK: - Requests (any thread)

    func makeRequestID() -> UInt64 {
        inbox.withLock { inbox in
            defer { inbox.nextRequestID += 1 }
            return inbox.nextRequestID
        }
    }

    /// Queues a command and wakes the loop; after the loop finished, answers it here.
    func submit(_ command: Command) {
        let accepted = inbox.withLock { inbox in
            guard !inbox.finished else { return false }
            inbox.commands.append(command)
            // Under the lock: the loop destroys the queue under it too.
            rd_kafka_queue_yield(consumerQueue)
            return true
        }
        guard accepted else {
            Self.answerAfterClose(command)
            return
        }
        wake.signal()
    }

    private static func answerAfterClose(_ command: Command) {
        switch command {
        case .batch(_, let giveUpAfter, let waiter):
            if giveUpAfter == nil {
                waiter.resume(returning: nil)
            } else {
                waiter.resume(throwing: KafkaError(.shutDown, reason: "the consumer is closed"))
            }
        case .commit(_, let waiter):
            waiter.resume(throwing: KafkaError(.shutDown, reason: "the consumer is closed; the batch was not committed"))
        case .close(let waiter):
            waiter?.resume()
        case .cancelBatch:
            break
        }
    }

    // MARK: - Loop (consumer thread)

    private func run() {
        var demands: [Demand] = []
        var cancelled: Set<UInt64> = []
        var closeWaiters: [CheckedContinuation<Void, Never>?] = []
        var closing = false

        while !closing {
            for command in inbox.withLock({ inbox in
                defer { inbox.commands = [] }; return inbox.commands
            }) {
                switch command {
                case .batch(let id, let giveUpAfter, let waiter):
                    if cancelled.remove(id) != nil {
                        waiter.resume(throwing: CancellationError())
                        continue
                    }
                    let now = clock.now
                    demands.append(
                        Demand(
                            id: id, waiter: waiter, fillDeadline: now.advanced(by: maxBatchWait),
                            giveUpDeadline: giveUpAfter.map { now.advanced(by: $0) }))
                case .cancelBatch(let id):
                    if let index = demands.firstIndex(where: { $0.id == id }) {
                        demands.remove(at: index).waiter.resume(throwing: CancellationError())
                    } else {
                        cancelled.insert(id)
                    }
                case .commit(let batch, let waiter):
                    waiter.resume(with: Result { try commit(batch) })
                case .close(let waiter):
                    closeWaiters.append(waiter)
                    closing = true
                }
            }
            if closing { break }

            if let demand = demands.first {
                let now = clock.now
                if state.buffer.count >= maxBatchSize || (!state.buffer.isEmpty && now >= demand.fillDeadline) {
                    demands.removeFirst().waiter.resume(returning: takeBatch())
                    continue
                }
                if state.buffer.isEmpty, let giveUp = demand.giveUpDeadline, now >= giveUp {
                    demands.removeFirst().waiter.resume(
                        returning: KafkaConsumerBatch(
                            records: [], consumerID: consumerID, assignmentEpochs: [:]))
                    continue
                }
            }

            if state.buffer.count < maxBatchSize {
                poll(timeoutMilliseconds: pollTimeout(for: demands.first))
                rewindOpenGaps()
                rejoinAfterBrokerLoss()
                restartLogsThatLostRecords()
            } else {
                // Full and nobody asking: stop fetching until someone does.
                _ = wake.wait(timeout: .now() + .milliseconds(100))
            }
        }

        // Leaving the group runs the revoke callback here, on this thread.
        let error = rd_kafka_consumer_close(client.handle)
        if error != RD_KAFKA_RESP_ERR_NO_ERROR {
            state.logHandler?(.warning, "consumer close: \(rdKafkaErrorText(error))")
        }
        let late = inbox.withLock { inbox in
            inbox.finished = true
            rd_kafka_queue_destroy(consumerQueue)
            defer { inbox.commands = [] }
            return inbox.commands
        }
        for demand in demands {
            // Same answer as a request arriving after close: `nil` ends the
            // sequence; a timed request throws (its `nil` means "no records yet").
            let timed: Duration? = demand.giveUpDeadline == nil ? nil : .zero
            Self.answerAfterClose(.batch(id: demand.id, giveUpAfter: timed, demand.waiter))
        }
        for command in late {
            Self.answerAfterClose(command)
        }
        for waiter in closeWaiters {
            waiter?.resume()
        }
    }

    /// How long one `rd_kafka_consumer_poll` may block: until the next
    /// deadline of the waiting demand, at most 100 ms (commands wake it sooner).
    private func pollTimeout(for demand: Demand?) -> Int32 {
        guard let demand else { return 100 }
        let deadline = state.buffer.isEmpty ? demand.giveUpDeadline : demand.fillDeadline
        guard let deadline else { return 100 }
        let remaining = clock.now.duration(to: deadline).wholeMilliseconds
        return Int32(min(max(remaining, 0), 100))
    }

    /// Polls once (blocking up to the timeout), then takes whatever else is
    /// ready without blocking, up to a full batch.
    private func poll(timeoutMilliseconds: Int32) {
        var timeout = timeoutMilliseconds
        while state.buffer.count < maxBatchSize {
            // Rebalance callbacks run inside this call and may change `state`.
            guard let message = rd_kafka_consumer_poll(client.handle, timeout) else { return }
            timeout = 0
            let record = accept(UnsafePointer(message))
            rd_kafka_message_destroy(message)
            if let record { state.buffer.append(record) }
        }
    }

    private func accept(_ message: UnsafePointer<rd_kafka_message_t>) -> KafkaConsumerRecord? {
        let error = message.pointee.err
        guard error == RD_KAFKA_RESP_ERR_NO_ERROR else {
            if error != RD_KAFKA_RESP_ERR__PARTITION_EOF {
                state.logHandler?(.warning, "consume error on \(message.topicName)[\(message.pointee.partition)]: \(rdKafkaErrorText(error))")
            }
            if error == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART || error == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC, state.rejoinWantedSince == nil {
                // A subscribed topic vanished (deleted, or a broker that lost it): rejoin once it is back.
                state.rejoinWantedSince = clock.now
            }
            return nil
        }
        let record = message.consumerRecord
        // librdkafka drops fetched records of unassigned partitions; this is a belt to its braces.
        guard state.owned[record.topicPartition] != nil else { return nil }
        return continuesOffsets(record) ? record : nil
    }

    // MARK: - Offset gaps (consumer thread; see OffsetGapTracker)

    /// Whether `record` may be handed out: it continues its partition's
    /// offsets, or a gap before it was re-read for long enough.
    private func continuesOffsets(_ record: KafkaConsumerRecord) -> Bool {
        guard state.gaps != nil else { return true }
        let partition = record.topicPartition
        if state.gaps?.needsStart(partition) == true, let start = startingOffset(partition) {
            state.gaps?.start(partition, at: start)
        }
        switch state.gaps?.verdict(partition, offset: record.offset, now: clock.now) ?? .accept {
        case .accept:
            return true
        case .drop:
            return false
        case .rewind(let offset):
            state.logHandler?(.info, "\(partition): offset \(record.offset) arrived before \(offset); reading again from \(offset)")
            rewind(partition, to: offset)
            return false
        case .acceptGap(let missing):
            state.logHandler?(
                .warning, "\(partition): offsets \(missing.lowerBound)..<\(missing.upperBound) never arrived; going on from \(record.offset)")
            return true
        case .acceptRestart(let from):
            state.logHandler?(.warning, "\(partition): offsets went back from \(from) to \(record.offset); reading on from there")
            return true
        }
    }

    /// Rewinds the gaps that have not filled since their last rewind.
    private func rewindOpenGaps() {
        guard let due = state.gaps?.dueRewinds(now: clock.now) else { return }
        for (partition, offset) in due where state.owned[partition] != nil {
            rewind(partition, to: offset)
        }
    }

    // MARK: - Broker loss (consumer thread)

    /// Leaves and rejoins the group once every subscribed topic exists again
    /// after librdkafka reported every broker down, or a subscribed topic
    /// unknown. A broker that comes back empty (the memory broker restarted;
    /// a cluster that lost its data) has forgotten the group, the topics and
    /// their logs, yet a member that reconnects within its session timeout
    /// keeps its old assignment and fetch state and reads nothing more, even
    /// once the topics are re-created and written (measured:
    /// KafkaConsumerLogRestartTests, `make chaos`'s broker kill); rejoining
    /// before the topics are back does not help either. Rejoining makes the
    /// group assign the partitions afresh from the committed offsets (none on
    /// an empty broker: from the start of the new logs). Against a broker that
    /// kept everything it costs one rebalance. Checked every
    /// ``rejoinCheckInterval``; after ``rejoinPatience`` without every topic,
    /// the member rejoins anyway.
    private func rejoinAfterBrokerLoss() {
        guard let lost = state.rejoinWantedSince else { return }
        let now = clock.now
        guard now >= nextRejoinCheck else { return }
        nextRejoinCheck = now.advanced(by: Self.rejoinCheckInterval)
        var subscription: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        guard rd_kafka_subscription(client.handle, &subscription) == RD_KAFKA_RESP_ERR_NO_ERROR, let subscription else { return }
        defer { rd_kafka_topic_partition_list_destroy(subscription) }
        let topics = Set(RDKafkaConsumerState.topicPartitions(subscription).map(\.topic))
        let patient = lost.duration(to: now) < Self.rejoinPatience
        if patient, !topics.isSubset(of: existingTopics()) { return }
        state.rejoinWantedSince = nil
        state.logHandler?(
            .warning, "rejoining the group after losing every broker or a topic (a broker that restarted empty forgot the group and its logs)")
        var error = rd_kafka_unsubscribe(client.handle)
        if error == RD_KAFKA_RESP_ERR_NO_ERROR { error = rd_kafka_subscribe(client.handle, subscription) }
        if error != RD_KAFKA_RESP_ERR_NO_ERROR {
            state.logHandler?(.error, "rejoining the group failed: \(rdKafkaErrorText(error)); retrying")
            state.rejoinWantedSince = lost
        }
    }

    /// The topics the cluster has now, with at least one partition (one
    /// metadata request, at most a second); empty when it cannot be asked.
    private func existingTopics() -> Set<String> {
        var metadata: UnsafePointer<rd_kafka_metadata>?
        guard rd_kafka_metadata(client.handle, 1, nil, &metadata, 1000) == RD_KAFKA_RESP_ERR_NO_ERROR, let metadata else { return [] }
        defer { rd_kafka_metadata_destroy(metadata) }
        var names: Set<String> = []
        for index in 0..<Int(metadata.pointee.topic_cnt) {
            let topic = metadata.pointee.topics[index]
            if topic.err == RD_KAFKA_RESP_ERR_NO_ERROR, topic.partition_cnt > 0 { names.insert(String(cString: topic.topic)) }
        }
        return names
    }

    /// Where a newly assigned partition's reading starts: the group's
    /// committed offset, else (reset to earliest) the partition's first
    /// offset; `nil` when unknown. Blocking, once per partition and assignment.
    private func startingOffset(_ partition: KafkaTopicPartition) -> Int64? {
        guard let list = rd_kafka_topic_partition_list_new(1) else { return nil }
        defer { rd_kafka_topic_partition_list_destroy(list) }
        rd_kafka_topic_partition_list_add(list, partition.topic, partition.partition)
        let error = rd_kafka_committed(client.handle, list, 5000)
        guard error == RD_KAFKA_RESP_ERR_NO_ERROR, list.pointee.elems[0].err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            state.logHandler?(.info, "\(partition): committed offset unknown (\(rdKafkaErrorText(error))); gaps are checked from the first record")
            return nil
        }
        let committed = list.pointee.elems[0].offset
        if committed >= 0 { return committed }
        guard autoOffsetReset == .earliest else { return nil }
        var low: Int64 = 0, high: Int64 = 0
        let watermarks = rd_kafka_query_watermark_offsets(client.handle, partition.topic, partition.partition, &low, &high, 5000)
        return watermarks == RD_KAFKA_RESP_ERR_NO_ERROR ? low : nil
    }

    /// Moves the partition's fetch position back to `offset`, waiting until
    /// librdkafka has purged what it fetched from the old position.
    func rewind(_ partition: KafkaTopicPartition, to offset: Int64) {
        guard let list = rd_kafka_topic_partition_list_new(1) else { return }
        defer { rd_kafka_topic_partition_list_destroy(list) }
        rd_kafka_topic_partition_list_add(list, partition.topic, partition.partition)?.pointee.offset = offset
        if let error = rd_kafka_seek_partitions(client.handle, list, 1000) {
            state.logHandler?(.warning, "\(partition): rewind to \(offset) failed: \(String(cString: rd_kafka_error_string(error)))")
            rd_kafka_error_destroy(error)
        }
    }

    private func takeBatch() -> KafkaConsumerBatch {
        let count = min(maxBatchSize, state.buffer.count)
        let records = Array(state.buffer.prefix(count))
        state.buffer.removeFirst(count)
        var epochs: [KafkaTopicPartition: UInt64] = [:]
        for record in records where epochs[record.topicPartition] == nil {
            epochs[record.topicPartition] = state.owned[record.topicPartition] ?? 0
        }
        return KafkaConsumerBatch(records: records, consumerID: consumerID, assignmentEpochs: epochs)
    }

    // MARK: - Commit (consumer thread)

    /// Commits one past the last offset of each partition in `batch` that
    /// this member still owns under the same assignment, synchronously.
    private func commit(_ batch: KafkaConsumerBatch) throws -> KafkaCommitResult {
        guard batch.consumerID == consumerID else {
            throw KafkaError(.foreignBatch, reason: "the batch was handed out by another consumer")
        }
        var result = KafkaCommitResult(committed: [:], skipped: [:])
        if state.rejoinWantedSince != nil {
            // The broker may have lost its logs: these offsets may be past the
            // end of the new ones, where the group would then start reading.
            // The rejoin that follows reads from what was committed before.
            for partition in batch.nextOffsets.keys { result.skipped[partition] = .rebalanceInProgress }
            return result
        }
        var pending: [KafkaTopicPartition: Int64] = [:]
        for (partition, next) in batch.nextOffsets {
            guard let epoch = state.owned[partition], epoch == batch.assignmentEpochs[partition] else {
                result.skipped[partition] = .revoked
                continue
            }
            if let done = state.committed[partition], done >= next {
                result.skipped[partition] = .alreadyCommitted
                continue
            }
            pending[partition] = next
        }
        guard !pending.isEmpty else { return result }

        let list = rd_kafka_topic_partition_list_new(Int32(pending.count))
        defer { rd_kafka_topic_partition_list_destroy(list) }
        for (partition, next) in pending {
            rd_kafka_topic_partition_list_add(list, partition.topic, partition.partition)?.pointee.offset = next
        }
        let error = rd_kafka_commit(client.handle, list, 0)
        switch error {
        case RD_KAFKA_RESP_ERR_NO_ERROR:
            break
        case RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS, RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION,
            RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID, RD_KAFKA_RESP_ERR__ASSIGNMENT_LOST:
            // The group moved on: whoever owns these partitions next reads them again.
            for partition in pending.keys { result.skipped[partition] = .rebalanceInProgress }
            return result
        default:
            throw KafkaError(.commitFailed, rdKafka: error, context: "commit")
        }
        var failures: [String] = []
        if let list, let elements = list.pointee.elems {
            for index in 0..<Int(list.pointee.cnt) {
                let element = elements[index]
                let partition = KafkaTopicPartition(topic: String(cString: element.topic), partition: element.partition)
                if element.err == RD_KAFKA_RESP_ERR_NO_ERROR {
                    result.committed[partition] = element.offset
                    state.committed[partition] = element.offset
                } else {
                    failures.append("\(partition): \(rdKafkaErrorText(element.err))")
                }
            }
        }
        if !failures.isEmpty {
            throw KafkaError(.commitFailed, reason: "commit failed for " + failures.joined(separator: "; "))
        }
        return result
    }
}
