import Foundation
import Postgres
import ServiceRuntime
import Telemetry

/// Prunes what a service's tables no longer need, every
/// ``RetentionSchedule/interval``: for each rule, batches of at most
/// ``RetentionSchedule/batchSize`` rows older than the rule's cutoff, with a
/// pause between batches, until a batch comes back short.
///
/// Each batch is its own short transaction that first tries a
/// transaction-scoped advisory lock of its rule, so replicas do not delete
/// the same rows side by side: a replica that finds the lock taken leaves
/// the rule to the other until the next interval. A failure is logged,
/// counted and tried again at the next interval; nothing reads the rows a
/// rule deletes, so a late run only lets a table grow a little longer.
public struct RetentionJob: Service {
    public let name = "retention"
    let pool: PostgresPool
    let rules: [RetentionRule]
    let schedule: RetentionSchedule
    let metrics: RetentionMetrics
    let logger: Logger
    let now: @Sendable () -> Date

    /// What one run did to one rule.
    public struct Outcome: Sendable, Equatable {
        public var deleted = 0
        public var batches = 0
        /// Another replica held the rule's lock; it prunes this time.
        public var leftToAnotherReplica = false

        public init(deleted: Int = 0, batches: Int = 0, leftToAnotherReplica: Bool = false) {
            self.deleted = deleted
            self.batches = batches
            self.leftToAnotherReplica = leftToAnotherReplica
        }
    }

    /// First key of the advisory locks (the second is the rule's name hashed);
    /// the outbox relay's locks use 4541012 and 4541013.
    static let lockNamespace = 4_541_020

    public init(
        pool: PostgresPool, rules: [RetentionRule], schedule: RetentionSchedule, registry: MetricsRegistry, logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.pool = pool
        self.rules = rules.filter { $0.period != .forever }
        self.schedule = schedule
        self.metrics = RetentionMetrics(registry: registry, rules: self.rules)
        self.logger = logger
        self.now = now
        for rule in rules where rule.period == .forever {
            logger.info("retention: kept forever", metadata: ["table": rule.name])
        }
    }

    public func run() async throws {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: schedule.interval)
            } catch {
                return
            }
            await runOnce()
        }
    }

    /// One pass over every rule (the tests call it directly).
    /// - Returns: what each rule's pass did, by its name; a failed rule is absent.
    @discardableResult
    public func runOnce() async -> [String: Outcome] {
        var outcomes: [String: Outcome] = [:]
        for rule in rules where !Task.isCancelled {
            do {
                let outcome = try await prune(rule)
                outcomes[rule.name] = outcome
                if !outcome.leftToAnotherReplica { metrics.lastSuccess(rule.name).set(now().timeIntervalSince1970) }
                if outcome.deleted > 0 {
                    logger.info(
                        "retention: rows deleted",
                        metadata: ["table": rule.name, "rows": String(outcome.deleted), "batches": String(outcome.batches)])
                }
            } catch {
                metrics.failures(rule.name).increment()
                logger.warning("retention failed", metadata: ["table": rule.name, "error": String(describing: error)])
            }
        }
        return outcomes
    }

    /// Deletes the rule's rows older than its cutoff, batch by batch. The
    /// cutoff is fixed for the run, so rows that age meanwhile wait for the
    /// next one and the run always ends.
    func prune(_ rule: RetentionRule) async throws -> Outcome {
        var outcome = Outcome()
        guard let cutoff = rule.period.cutoff(now: now()) else { return outcome }
        while true {
            let statement = rule.batch(cutoff, schedule.batchSize)
            let deleted: Int? = try await pool.withTransaction { connection in
                let held = try await connection.query(
                    "SELECT pg_try_advisory_xact_lock(\(unescaped: String(Self.lockNamespace)), hashtext(\(rule.name)))")
                guard let held = held.first, try held.decode(Bool.self) else { return nil }
                return try await connection.execute(statement)
            }
            guard let deleted else {
                outcome.leftToAnotherReplica = true
                return outcome
            }
            outcome.deleted += deleted
            outcome.batches += 1
            metrics.rowsDeleted(rule.name).increment(by: deleted)
            guard deleted >= schedule.batchSize else { return outcome }
            do {
                try await Task.sleep(for: schedule.batchPause)
            } catch {
                return outcome
            }
        }
    }
}
