import Timing
import Foundation
import Kafka
import BillingModel
import Postgres
import ServiceRuntime
import Synchronization
import Telemetry

/// The consume–queue–commit loop: reads `storefront.entitlements.v1` and
/// queues each change for every enabled endpoint that wants its type
/// (``DeliveryStore/enqueue(_:for:)``), then commits the batch. A record
/// read twice (a rebalance, a relay's repeat) queues nothing new: the
/// queue's key is (endpoint, event id), so each endpoint gets each change
/// once (exactly-once in effect). A record that does not decode is logged,
/// counted (`webhook_sender_records_total{result="unreadable"}`) and passed
/// over: only the projector writes the topic, with the same model.
///
/// An endpoint registered later gets the changes that arrive after it; a
/// disabled one gets none while it is disabled.
public final class DeliveryQueueService: Service, Sendable {
    public let name = "webhook-queue"
    public let consumer: KafkaConsumer
    let deliveries: DeliveryStore
    let endpoints: EndpointStore
    let pool: PostgresPool
    let migrate: Bool
    let metrics: WebhookSenderMetrics
    let logger: Logger
    private let stopping = Atomic<Bool>(false)
    private let startedUp = Atomic<Bool>(false)

    public init(
        consumer: KafkaConsumer, deliveries: DeliveryStore, endpoints: EndpointStore, pool: PostgresPool, migrate: Bool,
        metrics: WebhookSenderMetrics, logger: Logger
    ) {
        self.consumer = consumer
        self.deliveries = deliveries
        self.endpoints = endpoints
        self.pool = pool
        self.migrate = migrate
        self.metrics = metrics
        self.logger = logger
    }

    /// Whether start-up work (migrations) is done.
    public var isStarted: Bool { startedUp.load(ordering: .acquiring) }

    private var isStopping: Bool { stopping.load(ordering: .acquiring) }

    public func run() async throws {
        await withTaskCancellationHandler {
            await runLoop()
        } onCancel: {
            stopping.store(true, ordering: .releasing)
        }
        if Task.isCancelled { throw CancellationError() }
    }

    private func runLoop() async {
        let started = await Backoff(initial: .milliseconds(200), maximum: .seconds(5)).retry(
            while: { !isStopping },
            failed: { error, _, delay in
                logger.warning("start-up failed; retrying", metadata: ["error": "\(error)", "retry.in_seconds": "\(delay.inSeconds)"])
            }
        ) {
            if migrate { try await WebhookSenderSchema.migrate(pool: pool) }
        }
        guard started else { return }
        startedUp.store(true, ordering: .releasing)
        while !isStopping {
            let batch: KafkaConsumerBatch?
            do {
                batch = try await consumer.nextBatch()
            } catch {
                if !isStopping { logger.error("consumer failed: \(error)") }
                return
            }
            guard let batch else { return }
            // Not a child task: stopping must not interrupt a batch half way.
            await Task { await self.process(batch) }.value
        }
    }

    /// Queues the batch, retrying while the database is away, then commits.
    func process(_ batch: KafkaConsumerBatch) async {
        var changes: [(change: EntitlementChange, body: String)] = []
        for record in batch.records {
            guard let value = record.value, let change = try? RecordCoding.decode(EntitlementChange.self, from: value) else {
                metrics.unreadable.increment()
                logger.error(
                    "entitlement change not readable; passed over",
                    metadata: ["kafka.partition": String(record.partition), "kafka.offset": String(record.offset)])
                continue
            }
            changes.append((change, String(decoding: value, as: UTF8.self)))
        }
        var retries = BackoffCounter(Backoff(initial: .milliseconds(100), maximum: .seconds(5)))
        while !changes.isEmpty {
            do {
                let queued = try await deliveries.enqueue(changes, for: try await endpoints.enabled())
                metrics.queued.increment(by: queued)
                break
            } catch {
                if isStopping { logger.warning("batch not queued at shutdown: \(error)"); return }
                logger.error("batch not queued; retrying", metadata: ["error": "\(error)", "records": String(batch.records.count)])
                try? await Task.sleep(for: retries.failed())
            }
        }
        do {
            _ = try await consumer.commit(batch)
        } catch {
            logger.warning("commit failed; the batch will be redelivered and absorbed: \(error)")
        }
    }
}
