import Timing
import Foundation
import Kafka
import BillingModel
import Postgres
import ProjectionStore
import ServiceRuntime
import Synchronization
import Telemetry

/// The consume–apply–commit loop.
///
/// At start: migrations (unless disabled) and topic creation, retried until
/// they succeed. Then, per batch: apply (one transaction, dead letters
/// acknowledged), then commit, while the next batch is decoded and written
/// (``runLoop()``). On stop (task cancelled) the batch in flight is
/// finished and committed. The consumer and the dead-letter producer are
/// services of their own, before this one in the group, so they close after
/// it: the consumer leaves the group, then the producer flushes.
public final class ProjectorConsumerService: Service, Sendable {
    public let name = "projector-consumer"
    public let consumer: KafkaConsumer
    public let projector: Projector
    let pool: PostgresPool
    let messaging: MessagingSettings?
    let migrate: Bool
    let logger: Logger
    private let stopping = Atomic<Bool>(false)
    private let startedUp = Atomic<Bool>(false)

    public init(
        consumer: KafkaConsumer, projector: Projector, pool: PostgresPool, messaging: MessagingSettings?, migrate: Bool,
        logger: Logger
    ) {
        self.consumer = consumer
        self.projector = projector
        self.pool = pool
        self.messaging = messaging
        self.migrate = migrate
        self.logger = logger
    }

    /// Whether start-up work (migrations, topics) is done.
    public var isStarted: Bool { startedUp.load(ordering: .acquiring) }

    public func run() async throws {
        await withTaskCancellationHandler {
            await runLoop()
        } onCancel: {
            stopping.store(true, ordering: .releasing)
        }
        logger.info("projector consumer stopped")
        if Task.isCancelled { throw CancellationError() }
    }

    private var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Batch N+1 is taken and decoded while batch N is in the database, and
    /// N's offsets are committed while N+1 is written; batches are still
    /// applied one at a time, in order, and committed in order, each after
    /// its transaction.
    private func runLoop() async {
        guard await startUp() else { return }
        // Not child tasks: stopping must not interrupt a batch half way.
        var applying: Task<Void, Never>?
        var committing: Task<Void, Never>?
        while !isStopping, let batch = await nextBatch() {
            let decoded = projector.decode(batch.records)
            await applying?.value
            if isStopping { break }
            let applied = Task { await self.apply(batch, decoded) }
            let previousCommit = committing
            applying = Task { _ = await applied.value }
            committing = Task {
                guard await applied.value else { return }
                await previousCommit?.value
                await self.commit(batch)
            }
        }
        await applying?.value
        await committing?.value
    }

    /// The next batch, or nil when the consumer is closed or failed.
    private func nextBatch() async -> KafkaConsumerBatch? {
        do {
            return try await consumer.nextBatch()
        } catch {
            if !isStopping { logger.error("consumer failed: \(error)") }
            return nil
        }
    }

    private func startUp() async -> Bool {
        let done = await Backoff(initial: .milliseconds(200), maximum: .seconds(5)).retry(
            while: { !isStopping },
            failed: { error, _, delay in
                logger.warning("start-up failed; retrying", metadata: ["error": "\(error)", "retry.in_seconds": "\(delay.inSeconds)"])
            }
        ) {
            if migrate {
                let applied = try await ProjectionSchema.migrate(pool: pool)
                if !applied.isEmpty { logger.info("migrations applied", metadata: ["versions": applied.map(String.init).joined(separator: ",")]) }
            }
            if let messaging { try await messaging.ensureTopics(Topics.all) }
        }
        if done { startedUp.store(true, ordering: .releasing) }
        return done
    }

    /// Applies, retrying while the database or broker is away.
    /// - Returns: false when stopping left the batch unapplied (not to be committed).
    func apply(_ batch: KafkaConsumerBatch, _ decoded: ProjectorDecodedBatch) async -> Bool {
        projector.metrics.consumed(batch.nextOffsets)
        var retries = BackoffCounter(Backoff(initial: .milliseconds(100), maximum: .seconds(5)))
        while true {
            do {
                let outcome = try await projector.apply(decoded)
                logger.debug(
                    "batch applied",
                    metadata: [
                        "records": String(batch.records.count), "applied": String(outcome.applied),
                        "duplicates": String(outcome.duplicates), "dead_lettered": String(outcome.deadLettered),
                    ])
                return true
            } catch {
                projector.metrics.batchFailures.increment()
                // Stopping: leave it uncommitted; whoever owns the partition next re-applies it.
                if isStopping { logger.warning("batch not applied at shutdown: \(error)"); return false }
                logger.error("batch failed; retrying", metadata: ["error": "\(error)", "records": String(batch.records.count)])
                try? await Task.sleep(for: retries.failed())
            }
        }
    }

    /// Commits the batch's offsets; a failure only means the batch is read again (and absorbed).
    func commit(_ batch: KafkaConsumerBatch) async {
        do {
            let result = try await consumer.commit(batch)
            projector.metrics.committed(result.committed)
            if !result.isComplete {
                // Revoked partitions are re-read by their new owner; the apply is idempotent.
                logger.info(
                    "commit skipped partitions", metadata: ["partitions": result.skipped.keys.map(\.description).sorted().joined(separator: ",")])
            }
        } catch {
            logger.warning("commit failed; the batch will be redelivered and absorbed: \(error)")
        }
    }
}
