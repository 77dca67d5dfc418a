import Timing
import Foundation
import Kafka
import BillingModel
import Postgres
import ServiceRuntime
import Synchronization
import Telemetry
import EntitlementSigning

/// The consume–queue–commit loop: reads ``topics`` with one consumer
/// (entitlement changes from the projector, purchase events from the
/// checkout) and queues each record for every enabled endpoint that wants
/// its type (``DeliveryStore/enqueue(_:for:)``), then commits the batch. A
/// record read twice (a rebalance, a relay's or producer's repeat) queues
/// nothing new: the queue's key is (endpoint, event id), so each endpoint
/// gets each event once (exactly-once in effect). A record that does not
/// decode is logged (topic, partition and offset only: a purchase event
/// holds a redemption link), counted
/// (`webhook_sender_records_total{result="unreadable"}`) and passed over:
/// only Storefront's services write these topics, with the same models.
///
/// An entitlement change is queued only when the projector signed it
/// (``EntitlementChangeGate``): anyone who can write to the broker can write
/// the topic, and what the sender queues goes out signed as Storefront's
/// webhook. A record without a valid signature is counted
/// (`storefront_entitlement_changes_rejected_total{reason}`), logged and
/// passed over like an unreadable one.
///
/// An endpoint registered later gets the events that arrive after it; one
/// the operator disabled gets none while it is disabled; one the circuit
/// breaker disabled gets them recorded dead, for `storefront endpoints replay --since`.
public final class DeliveryQueueService: Service, Sendable {
    /// The topics the sender's consumer reads: one consumer, one group, one
    /// commit per batch for both.
    public static let topics = [Topics.entitlements, Topics.purchaseEvents]

    public let name = "webhook-queue"
    public let consumer: KafkaConsumer
    let deliveries: DeliveryStore
    let endpoints: EndpointStore
    /// Lets through only the entitlement changes the projector signed.
    let changes: EntitlementChangeGate
    let pool: PostgresPool
    let migrate: Bool
    let metrics: WebhookSenderMetrics
    let logger: Logger
    private let stopping = Atomic<Bool>(false)
    private let startedUp = Atomic<Bool>(false)

    public init(
        consumer: KafkaConsumer, deliveries: DeliveryStore, endpoints: EndpointStore, changes: EntitlementChangeGate, pool: PostgresPool,
        migrate: Bool, metrics: WebhookSenderMetrics, logger: Logger
    ) {
        self.consumer = consumer
        self.deliveries = deliveries
        self.endpoints = endpoints
        self.changes = changes
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
        var events: [OutgoingEvent] = []
        for record in batch.records {
            // Counted and logged by the gate; committed past with the batch.
            if record.topic == Topics.entitlements, !changes.admits(record) { continue }
            guard let event = Self.event(topic: record.topic, value: record.value) else {
                metrics.unreadable.increment()
                // Where it is, never what it says: a purchase event's value holds a redemption link.
                logger.error(
                    "record not readable; passed over",
                    metadata: [
                        "kafka.topic": record.topic, "kafka.partition": String(record.partition), "kafka.offset": String(record.offset),
                    ])
                continue
            }
            events.append(event)
        }
        var retries = BackoffCounter(Backoff(initial: .milliseconds(100), maximum: .seconds(5)))
        while !events.isEmpty {
            do {
                let queued = try await deliveries.enqueue(events, for: try await endpoints.receiving())
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

    /// A record's value as an event to queue, read with its topic's model;
    /// nil when it does not decode (or comes from a topic the sender does not read).
    static func event(topic: String, value: [UInt8]?) -> OutgoingEvent? {
        guard let value else { return nil }
        let body = String(decoding: value, as: UTF8.self)
        switch topic {
        case Topics.entitlements:
            return (try? RecordCoding.decode(EntitlementChange.self, from: value)).map { OutgoingEvent($0, body: body) }
        case Topics.purchaseEvents:
            return (try? RecordCoding.decode(PurchaseEvent.self, from: value)).map { OutgoingEvent($0, body: body) }
        default:
            return nil
        }
    }
}
