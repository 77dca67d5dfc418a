import Timing
import ServiceSettings
import Foundation
import Kafka
import BillingModel
import Postgres
import ServiceRuntime
import Telemetry

/// Publishes the entitlement outbox to `storefront.entitlements.v1`, in
/// `seq` order (so in order per user), and marks each row published only
/// after the broker acknowledged it (`acks=all`, idempotent producer).
///
/// At-least-once: a relay that dies between the acknowledgement and the
/// mark (or whose mark fails) leaves the row unpublished, and the next round
/// (of this replica or another) sends it again; consumers dedupe by the
/// event id. A projector that dies between its batch's commit and the
/// publish loses nothing: the row waits in the table.
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
    /// Sends one record and returns once the broker acknowledged it.
    let publish: @Sendable (KafkaProducerMessage) async throws -> Void
    let settings: Settings
    let metrics: OutboxMetrics
    let logger: Logger
    /// False until the schema is migrated (the consumer service does it at start-up): no round before.
    let isReady: @Sendable () -> Bool

    public init(
        pool: PostgresPool, settings: Settings, registry: MetricsRegistry, logger: Logger, isReady: @escaping @Sendable () -> Bool = { true },
        publish: @escaping @Sendable (KafkaProducerMessage) async throws -> Void
    ) {
        self.pool = pool
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

    /// One round: the oldest unpublished rows, published one after the other
    /// in order, those delivered marked, in one transaction holding the relay lock.
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
                    """)
                var round = Round()
                var delivered: [Int64] = []
                for row in rows {
                    let (seq, user, record, createdAt) = try row.decode((Int64, String, String, Date).self)
                    do {
                        try await publish(KafkaProducerMessage(topic: Topics.entitlements, key: user, value: Array(record.utf8)))
                    } catch {
                        // Later rows may be the same user's: stop here, keep the order.
                        round.failure = error
                        break
                    }
                    delivered.append(seq)
                    metrics.publishLag.observe(max(0, Date().timeIntervalSince(createdAt)))
                }
                if !delivered.isEmpty {
                    let list = String(decoding: try RecordCoding.encode(delivered), as: UTF8.self)
                    _ = try await connection.execute(
                        """
                        UPDATE entitlement_outbox SET published_at = now()
                        WHERE seq IN (SELECT (jsonb_array_elements_text(\(list)::jsonb))::bigint)
                        """)
                }
                round.published = delivered.count
                metrics.published.increment(by: delivered.count)
                let depth = try await connection.query("SELECT count(*) FROM entitlement_outbox WHERE published_at IS NULL")
                if let row = depth.first {
                    let unpublished = try row.decode(column: 0, as: Int64.self)
                    metrics.depth.set(Double(unpublished))
                }
                return round
            }
        }
    }
}
