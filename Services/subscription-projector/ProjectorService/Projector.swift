import Timing
import Foundation
import Kafka
import BillingModel
import Postgres
import Entitlements
import Telemetry
import Webhooks

/// What applying one batch did.
public struct ProjectorBatchOutcome: Sendable, Hashable {
    public var applied = 0
    public var duplicates = 0
    public var deadLettered = 0
    public var subscriptionsProjected = 0
    public init() {}
}

/// A batch's records, decoded: the understood ones with their record, and
/// the dead letters of the rest.
public struct ProjectorDecodedBatch: Sendable {
    var inputs: [(record: KafkaConsumerRecord, input: ProjectionInput)] = []
    var letters: [DeadLetterRecord] = []
}

/// Applies consumed records: decodes them, writes the understood ones in one
/// transaction, and dead-letters the rest. Returning means the batch's
/// effect is durable (database and dead-letter topic), so its offsets may be
/// committed. Safe to call again with the same records: nothing changes.
public struct Projector: Sendable {
    public let writer: ProjectionWriter
    public let deadLetters: any DeadLetterSink
    public let metrics: ProjectorMetrics
    /// Checks the ownership claims in webhooks and snapshots (`OWNERSHIP_PROOF_KEY`,
    /// the checkout's key): only a proven app user or checkout id reaches the projection.
    public let ownership: OwnershipProof
    /// The consumer group, written into dead letters.
    public let consumerName: String
    let logger: Logger

    public init(
        writer: ProjectionWriter, deadLetters: any DeadLetterSink, metrics: ProjectorMetrics, ownership: OwnershipProof, consumerName: String,
        logger: Logger
    ) {
        self.writer = writer
        self.deadLetters = deadLetters
        self.metrics = metrics
        self.ownership = ownership
        self.consumerName = consumerName
        self.logger = logger
    }

    /// Applies `records` (any topics, any order).
    /// - Throws: database or broker errors that retrying may cure; nothing
    ///   should be committed then.
    public func apply(_ records: [KafkaConsumerRecord]) async throws -> ProjectorBatchOutcome {
        try await apply(decode(records))
    }

    /// Decodes `records` without touching the database, so that the
    /// consumer can decode the next batch while this one is written.
    public func decode(_ records: [KafkaConsumerRecord]) -> ProjectorDecodedBatch {
        var batch = ProjectorDecodedBatch()
        for record in records {
            switch ProjectorRecordDecoder.decode(record, ownership: ownership, unproven: unproven) {
            case .input(let input): batch.inputs.append((record, input))
            case .deadLetter(let reason): batch.letters.append(letter(record, reason: reason))
            }
        }
        return batch
    }

    /// Applies a decoded batch, as the records' `apply` does; safe to call again after a failure.
    public func apply(_ batch: ProjectorDecodedBatch) async throws -> ProjectorBatchOutcome {
        let started = ContinuousClock.now
        let inputs = batch.inputs
        var letters = batch.letters
        var outcome = ProjectorBatchOutcome()
        let (result, rejected) = try await write(inputs[...])
        Self.observeVisibility(of: inputs, at: Date(), metrics: metrics)
        letters += rejected
        // Logged and applied once the purchase arrives, but never silent:
        // money went back for something Storefront has no record of yet.
        let unlinked = Set(result.unlinkedMoneyBack)
        for (record, input) in inputs {
            guard case .webhook(let delivery) = input, unlinked.contains(delivery.dedupKey) else { continue }
            letters.append(
                letter(
                    record,
                    reason: "unlinked money back: \(delivery.event.providerEventName) names transaction "
                        + "\(delivery.event.transactionReference ?? "?"), which no logged charge, order or invoice carries; "
                        + "logged, and applied when that purchase arrives (the reconciler fetches it)"))
        }
        if !result.unreadableLoggedEvents.isEmpty {
            metrics.unreadableLoggedEvents.increment(by: result.unreadableLoggedEvents.count)
            logger.error(
                "logged events no longer read back; folded without them (they stay in billing_events)",
                metadata: ["dedup_keys": result.unreadableLoggedEvents.prefix(20).joined(separator: ",")])
        }
        outcome.applied = result.newEvents + result.newRecords
        outcome.duplicates = result.duplicateEvents + result.duplicateRecords
        outcome.subscriptionsProjected = result.subscriptionsProjected
        if !letters.isEmpty {
            try await deadLetters.send(letters)
            for letter in letters {
                logger.warning(
                    "record dead-lettered",
                    metadata: [
                        "source.topic": letter.sourceTopic, "source.partition": String(letter.sourcePartition),
                        "source.offset": String(letter.sourceOffset), "reason": letter.reason,
                    ])
            }
        }
        outcome.deadLettered = letters.count
        metrics.applied.increment(by: outcome.applied)
        metrics.duplicates.increment(by: outcome.duplicates)
        metrics.deadLettered.increment(by: outcome.deadLettered)
        metrics.subscriptionsProjected.increment(by: outcome.subscriptionsProjected)
        metrics.batchLatency.observe((ContinuousClock.now - started).inSeconds)
        return outcome
    }

    /// Writes in one transaction. If the database rejects the data itself (not
    /// a connection problem), halves the batch until the offending record is
    /// alone, and dead-letters it, so one bad record never blocks a partition.
    private func write(
        _ inputs: ArraySlice<(record: KafkaConsumerRecord, input: ProjectionInput)>
    ) async throws
        -> (ProjectionWriteResult, [DeadLetterRecord])
    {
        do {
            return (try await writer.write(inputs.map(\.input)), [])
        } catch  where Self.rejectsRecord(error) {
            if inputs.count == 1, let only = inputs.first {
                return (ProjectionWriteResult(), [letter(only.record, reason: Self.reason(error))])
            }
            let middle = inputs.startIndex + inputs.count / 2
            let (first, firstLetters) = try await write(inputs[inputs.startIndex..<middle])
            let (second, secondLetters) = try await write(inputs[middle...])
            var merged = first
            merged.newEvents += second.newEvents
            merged.duplicateEvents += second.duplicateEvents
            merged.newRecords += second.newRecords
            merged.duplicateRecords += second.duplicateRecords
            merged.subscriptionsProjected += second.subscriptionsProjected
            merged.unlinkedMoneyBack += second.unlinkedMoneyBack
            merged.unreadableLoggedEvents += second.unreadableLoggedEvents
            return (merged, firstLetters + secondLetters)
        }
    }

    /// Errors that are about the records, so retrying the batch can never
    /// cure them: data exceptions (22xxx), integrity violations (23xxx),
    /// program limits such as an index row too large (54xxx), binds the
    /// client refuses (NUL bytes), and an event that cannot be encoded for the
    /// log or decoded back from it (e.g. a timestamp whose year cannot be
    /// written). The batch is halved until the record is alone, and it is
    /// dead-lettered with the reason.
    static func rejectsRecord(_ error: any Error) -> Bool {
        switch error {
        case let error as PostgresError:
            if error.kind == .invalidBind { return true }
            guard error.kind == .server, let state = error.sqlState else { return false }
            return state.hasPrefix("22") || state.hasPrefix("23") || state.hasPrefix("54")
        case is DecodingError, is EncodingError:
            return true
        default:
            return false
        }
    }

    static func reason(_ error: any Error) -> String {
        switch error {
        case let error as PostgresError:
            "database rejected the record: \(error.kind) \(error.sqlState ?? "") \(error.message ?? "")"
        default:
            "the record's event cannot be logged and read back: \(ProjectorRecordDecoder.describe(error))"
        }
    }

    /// Counts and logs an event whose custom data claimed a user or checkout
    /// without a valid proof (a forged or hand-made buy link, or a checkout
    /// signed with another key): it is applied without them.
    private func unproven(_ claim: BillingEvent) {
        metrics.unprovenOwnershipClaims(claim.provider).increment()
        logger.notice(
            "ownership claim without a valid proof; applied without an owner",
            metadata: [
                "provider": claim.provider.rawValue, "event": claim.providerEventName, "entity": claim.entityKey,
                "claim.user": String((claim.appUserID ?? "").prefix(128)), "claim.checkout": String((claim.checkoutID ?? "").prefix(128)),
                "claim.has_proof": String(claim.customData[CustomDataKeys.proof] != nil),
            ])
    }

    func letter(_ record: KafkaConsumerRecord, reason: String) -> DeadLetterRecord {
        DeadLetterRecord(
            sourceTopic: record.topic, sourcePartition: record.partition, sourceOffset: record.offset,
            sourceKey: record.key.map { String(decoding: $0, as: UTF8.self) }, sourceValue: record.value ?? [],
            reason: reason, consumer: consumerName, failedAt: Date())
    }
}
