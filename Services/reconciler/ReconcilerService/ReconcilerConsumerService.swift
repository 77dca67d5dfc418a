import Timing
import Foundation
import Kafka
import BillingModel
import ServiceRuntime
import Synchronization
import Telemetry

/// The consume–fetch–publish–commit loop.
///
/// At start the topics are created (retried until the broker answers). Then
/// each batch's records become fetch requests for the ``Reconciler``, and a
/// batch's offsets are committed, in consumption order, once every request
/// in it is dealt with: its snapshot acknowledged by the broker, or its fetch
/// failed and parked for a retry, or it waited longer than
/// ``ReconcilerConfiguration/maxCommitDelay`` for its fetch to start. At
/// most ``ReconcilerConfiguration/maxUncommittedBatches`` wait for that.
///
/// What a crash loses: the parked retries and the overdue fetches (in memory
/// only; their records are committed; `reconciler_released_before_snapshot_total`
/// counts them). The next sweep publishes every object the provider changed
/// since the previous sweep started, which covers them. Everything else is
/// re-read from the last committed offset and fetched again.
///
/// On stop: no more batches; waiting fetches are made due at once; the
/// batches that complete within ``ReconcilerConfiguration/shutdownGrace`` are
/// committed. Then the consumer, a service of its own before this one in the
/// group, leaves the group (the rest is re-read by the partitions' next owner).
public final class ReconcilerConsumerService: Service, Sendable {
    public let name = "reconciler-consumer"
    public let consumer: KafkaConsumer
    public let reconciler: Reconciler
    let tracker: BatchTracker
    let configuration: ReconcilerConfiguration
    let messaging: MessagingSettings?
    let metrics: ReconcilerMetrics
    let logger: Logger
    private let stopping = Atomic<Bool>(false)
    private let startedUp = Atomic<Bool>(false)

    init(
        consumer: KafkaConsumer, reconciler: Reconciler, tracker: BatchTracker, configuration: ReconcilerConfiguration,
        messaging: MessagingSettings?, metrics: ReconcilerMetrics, logger: Logger
    ) {
        self.consumer = consumer
        self.reconciler = reconciler
        self.tracker = tracker
        self.configuration = configuration
        self.messaging = messaging
        self.metrics = metrics
        self.logger = logger
        metrics.registry.onCollect { [tracker] in metrics.uncommittedBatches.set(Double(tracker.count)) }
    }

    /// Whether the topics are ensured and consumption has begun.
    public var isStarted: Bool { startedUp.load(ordering: .acquiring) }

    /// Whether this member owns partition 0 of the webhooks topic: the one
    /// replica that runs the scheduled sweep.
    public var isSweepLeader: Bool {
        consumer.assignment.contains(KafkaTopicPartition(topic: Topics.webhooks, partition: 0))
    }

    public func run() async throws {
        let engine = Task { await reconciler.run() }
        await withTaskCancellationHandler {
            await runLoop()
        } onCancel: {
            stopping.store(true, ordering: .releasing)
            tracker.progress.ring()
        }
        // Not a child task: the drain must not see the group's cancellation.
        await Task { await self.drain() }.value
        reconciler.stop()
        await engine.value
        logger.info("reconciler consumer stopped")
        if Task.isCancelled { throw CancellationError() }
    }

    private var isStopping: Bool { stopping.load(ordering: .acquiring) }

    private func runLoop() async {
        guard await startUp() else { return }
        while !isStopping {
            await commitCompleted()
            if tracker.count >= configuration.maxUncommittedBatches {
                await tracker.progress.wait(upTo: .milliseconds(250))
                continue
            }
            let batch: KafkaConsumerBatch?
            do {
                batch = try await consumer.nextBatch(timeout: .milliseconds(250))
            } catch {
                if isStopping { return }
                logger.error("consumer failed: \(error)")
                return
            }
            guard let batch else { continue }
            accept(batch)
        }
    }

    private func startUp() async -> Bool {
        let done = await Backoff(initial: .milliseconds(200), maximum: .seconds(5)).retry(
            while: { !isStopping },
            // Wakes at once on shutdown (the cancellation handler rings it).
            wait: { await tracker.progress.wait(upTo: $0) },
            failed: { error, _, delay in
                logger.warning("topics not ensured yet; retrying", metadata: ["error": "\(error)", "retry.in_seconds": "\(delay.inSeconds)"])
            }
        ) {
            if let messaging { try await messaging.ensureTopics(Topics.all) }
        }
        if done { startedUp.store(true, ordering: .releasing) }
        return done
    }

    /// Turns the batch's records into requests and hands them over.
    func accept(_ batch: KafkaConsumerBatch) {
        var requests: [ReconcileRequest] = []
        for record in batch.records {
            switch ReconcileRecordDecoder.decode(record, commandDelay: configuration.commandDelay) {
            case .requests(let found):
                requests += found
                metrics.records(record.topic, found.isEmpty ? "nothing_to_fetch" : "queued").increment()
            case .ignored:
                metrics.records(record.topic, "ignored").increment()
            case .unreadable(let reason):
                metrics.records(record.topic, "unreadable").increment()
                logger.debug(
                    "record skipped (the projector dead-letters it)",
                    metadata: [
                        "source.topic": record.topic, "source.partition": String(record.partition), "source.offset": String(record.offset),
                        "reason": reason,
                    ])
            }
        }
        let ticket = tracker.add(batch, expected: requests.count)
        reconciler.submit(requests, ticket: ticket)
    }

    /// Commits the leading complete batches, in order.
    func commitCompleted() async {
        for batch in tracker.takeCommittable() {
            do {
                let result = try await consumer.commit(batch)
                if !result.isComplete {
                    // Revoked partitions are re-read by their new owner; fetching twice is harmless.
                    logger.info(
                        "commit skipped partitions", metadata: ["partitions": result.skipped.keys.map(\.description).sorted().joined(separator: ",")])
                }
            } catch {
                logger.warning("commit failed; the records will be read again: \(error)")
            }
        }
    }

    private func drain() async {
        reconciler.flush()
        let deadline = ContinuousClock.now + configuration.shutdownGrace
        while tracker.count > 0, ContinuousClock.now < deadline {
            await tracker.progress.wait(upTo: min(.milliseconds(200), deadline - ContinuousClock.now))
            await commitCompleted()
        }
        await commitCompleted()
        let left = tracker.count
        if left > 0 { logger.warning("batches left uncommitted at shutdown (they are read again)", metadata: ["batches": String(left)]) }
        let parked = reconciler.counts.parked
        if parked > 0 { logger.warning("parked retries dropped at shutdown (the next sweep covers them)", metadata: ["objects": String(parked)]) }
    }
}
