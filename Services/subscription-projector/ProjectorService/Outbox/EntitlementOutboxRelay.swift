import Timing
import ServiceSettings
import Foundation
import Kafka
import BillingModel
import Postgres
import ServiceRuntime
import Telemetry
import EntitlementSigning

/// Publishes the entitlement outbox to `storefront.entitlements.v1`, in
/// `seq` order (so in order per user), and marks each row published only
/// after the broker acknowledged it (`acks=all`, idempotent producer). A
/// round's records are sent together and acknowledged in order; a failure
/// ends the round's marks at the row before it.
///
/// At-least-once: a relay that dies between the acknowledgement and the
/// mark (or whose mark fails) leaves the row unpublished, and the next round
/// (of this replica or another) sends it again; consumers dedupe by the
/// event id. A projector that dies between its batch's commit and the
/// publish loses nothing: the row waits in the table.
///
/// Every record is signed (``EntitlementChangeSigner``: a `storefront-sig`
/// header over topic, key and value) with the key only the projector holds,
/// so its consumers can tell its changes from anything else written to the
/// topic. The signature is made as the row is sent, not stored with it: the
/// row stays what the projector decided, and a rotated key signs what is
/// still waiting.
///
/// One relay publishes at a time across replicas (a transaction-scoped
/// advisory lock, tried, never waited on), so two replicas never interleave
/// one user's records. A round is bounded (``Settings/batchSize`` rows, each
/// publish bounded by the producer's message timeout); failures back off.
public struct EntitlementOutboxRelay: Service {
    /// `OUTBOX_*` settings of the projector (README, "subscription-projector").
    public struct Settings: Sendable, Hashable {
        /// `OUTBOX_BATCH_SIZE` (default 100, 1...10 000): rows per round.
        public var batchSize: Int
        /// `OUTBOX_POLL_INTERVAL` (default 200 ms): the wait after a round that emptied the outbox.
        public var pollInterval: Duration
        /// `OUTBOX_BACKOFF_MAX` (default 30 s): the longest wait after failed rounds
        /// (from 250 ms, doubling; the one ``Backoff`` schedule).
        public var backoff: Backoff

        public init(
            batchSize: Int = 100, pollInterval: Duration = .milliseconds(200),
            backoff: Backoff = Backoff(initial: .milliseconds(250), maximum: .seconds(30))
        ) {
            self.batchSize = batchSize
            self.pollInterval = pollInterval
            self.backoff = backoff
        }

        /// Reads the settings; problems are collected in `reader`.
        public static func fromEnvironment(_ reader: inout ConfigReader) -> Settings {
            Settings(
                batchSize: reader.int(.outboxBatchSize, default: 100, in: 1...10_000),
                pollInterval: reader.duration(.outboxPollInterval, default: .milliseconds(200)),
                backoff: Backoff(initial: .milliseconds(250), maximum: reader.duration(.outboxBackoffMax, default: .seconds(30))))
        }
    }

    public let name = "entitlement-outbox-relay"
    let pool: PostgresPool
    /// Signs each record before it is sent.
    let signer: EntitlementChangeSigner
    /// Sends a round's records in order and awaits their acknowledgements
    /// (``KafkaProducer/sendInOrderAndAwait(_:)``).
    let publish: @Sendable ([KafkaProducerMessage]) async -> KafkaOrderedDelivery
    let settings: Settings
    let metrics: OutboxMetrics
    let logger: Logger
    /// False until the schema is migrated (the consumer service does it at start-up): no round before.
    let isReady: @Sendable () -> Bool

    public init(
        pool: PostgresPool, settings: Settings, signer: EntitlementChangeSigner, registry: MetricsRegistry, logger: Logger,
        isReady: @escaping @Sendable () -> Bool = { true }, publish: @escaping @Sendable ([KafkaProducerMessage]) async -> KafkaOrderedDelivery
    ) {
        self.pool = pool
        self.signer = signer
        self.isReady = isReady
        self.settings = settings
        self.publish = publish
        self.metrics = OutboxMetrics(registry: registry)
        self.logger = logger
    }

    public func run() async throws {
        var failures = BackoffCounter(settings.backoff)
        while !Task.isCancelled {
            guard isReady() else {
                // Start-up takes moments: checked often, whatever the poll interval.
                try? await Task.sleep(for: .milliseconds(100))
                continue
            }
            let wait: Duration
            do {
                let round = try await relayOnce()
                if let failure = round.failure { throw failure }
                failures.succeeded()
                // A full round means more may be waiting: go on at once.
                wait = round.published == settings.batchSize ? .zero : settings.pollInterval
            } catch {
                metrics.failures.increment()
                wait = failures.failed()
                logger.warning("entitlement outbox not published; retrying", metadata: ["error": "\(error)", "retry.in": "\(wait)"])
            }
            if wait > .zero { try? await Task.sleep(for: wait) }
        }
    }

    /// What one round did: rows published (and marked), and the publish
    /// failure that ended it early, if any (the rows before it stay marked).
    struct Round {
        var published = 0
        var failure: (any Error)?
    }

    /// One round: the oldest unpublished rows, sent all at once in order
    /// and their acknowledgements awaited in that order (one broker round
    /// trip or so for the round, not one per row), those delivered before
    /// the first failure marked, in one transaction holding the relay lock.
    func relayOnce() async throws -> Round {
        try await pool.withConnection { connection in
            try await connection.withTransaction { connection in
                // Its own lock class (the outbox's user locks are class 4541012), so no user's lock is ever this one.
                guard let held = try await connection.query("SELECT pg_try_advisory_xact_lock(4541013, 0)").first,
                    try held.decode(Bool.self)
                else { return Round() }
                let rows = try await connection.query(
                    """
                    SELECT seq, app_user_id, record, created_at FROM entitlement_outbox
                    WHERE published_at IS NULL ORDER BY seq LIMIT \(settings.batchSize)
                    """
                ).map { try $0.decode((Int64, String, String, Date).self) }
                guard !rows.isEmpty else {
                    metrics.depth.set(0)
                    return Round()
                }
                let messages = try rows.map { row in
                    try signer.signed(KafkaProducerMessage(topic: Topics.entitlements, key: row.1, value: Array(row.2.utf8)))
                }
                let delivery = await publish(messages)
                // Later rows may be the same user's: only those before the first failure count, so the order holds.
                let delivered = rows.prefix(delivery.acknowledged)
                let acknowledgedAt = Date()
                for row in delivered { metrics.publishLag.observe(max(0, acknowledgedAt.timeIntervalSince(row.3))) }
                if !delivered.isEmpty {
                    let seqs = try PostgresBind.array(delivered.map(\.0.postgresBind), of: .int8)
                    _ = try await connection.execute("UPDATE entitlement_outbox SET published_at = now() WHERE seq = ANY(\(seqs)::bigint[])")
                }
                metrics.published.increment(by: delivered.count)
                if let row = try await connection.query("SELECT count(*) FROM entitlement_outbox WHERE published_at IS NULL").first {
                    metrics.depth.set(Double(try row.decode(column: 0, as: Int64.self)))
                }
                return Round(published: delivered.count, failure: delivery.failure)
            }
        }
    }
}
