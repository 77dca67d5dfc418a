import Timing
import ServiceSettings
import Foundation
import Kafka
import BillingModel
import ServiceRuntime
import Telemetry

/// `storefront deadletter list` and `storefront deadletter replay`.
///
/// `list` reads the whole dead-letter topic with a throwaway consumer group
/// (nothing committed) and prints one line per record. `replay` publishes
/// each dead letter's source record back to its source topic with its key,
/// using the group `storefront-deadletter-replay` (or `--group G`) and
/// committing after each batch, so a second replay only sends letters that
/// arrived since. Replaying is safe: the projector deduplicates by the
/// record's id. `--topic T` limits either command to letters from source
/// topic T; a limited replay keeps its progress in a group of its own
/// (`<group>.<T>`), because committing past the letters it skipped would hide
/// them from every later replay.
public enum DeadLetterCommand {
    /// How long a read that has reached where the topic ended at its start
    /// waits for letters that arrived since, before it stops.
    static let drainWait: Duration = .seconds(3)
    /// How long a read that has not reached that end yet waits for a batch
    /// (joining a new group can take seconds on a loaded broker) before it
    /// fails rather than report fewer letters than there are.
    static let unreadWait: Duration = .seconds(60)
    static let replayGroup = "storefront-deadletter-replay"

    public static func run(
        _ arguments: CommandLineArguments, environment: Environment, logger: Logger,
        output: @Sendable (String) -> Void
    ) async throws {
        var reader = ConfigReader(environment)
        let messaging = MessagingSettings.fromEnvironment(&reader, service: "storefront-cli", logger: logger)
        try reader.finish()
        let sourceTopic = arguments.options["topic"]
        func selected(_ letter: DeadLetterRecord?) -> Bool { sourceTopic == nil || letter?.sourceTopic == sourceTopic }
        switch arguments.words.dropFirst().first {
        case "list":
            let letters = try await read(messaging, group: "storefront-deadletter-list-\(UUID().uuidString)", commit: false) { _ in }
                .filter { selected($0.1) }
            for (record, letter) in letters { output(describe(record, letter)) }
            output("\(letters.count) dead letter(s)")
        case "replay":
            let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: messaging.client))
            var replayed = 0
            var withoutValue: [DeadLetterRecord] = []
            let group = replayGroup(arguments.options["group"] ?? replayGroup, sourceTopic: sourceTopic)
            _ = try await read(messaging, group: group, commit: true) { letter in
                guard selected(letter) else { return }
                guard letter.omittedSourceValueBytes == nil else {
                    withoutValue.append(letter)
                    return
                }
                _ = try await producer.sendAndAwait(
                    KafkaProducerMessage(
                        topic: letter.sourceTopic, key: letter.sourceKey.map { Array($0.utf8) }, value: letter.sourceValue.bytes))
                replayed += 1
            }
            let undelivered = await producer.shutdown()
            for letter in withoutValue {
                output(
                    "not replayed: \(letter.sourceTopic)[\(letter.sourcePartition)@\(letter.sourceOffset)] kept no value "
                        + "(\(letter.omittedSourceValueBytes ?? 0) bytes, over the message limit); it is in its source topic while retained")
            }
            output("replayed \(replayed) dead letter(s)" + (undelivered.isEmpty ? "" : ", \(undelivered.count) not delivered"))
        default:
            throw CommandLineArguments.UsageError(description: "usage: storefront deadletter list|replay")
        }
    }

    /// The consumer group a replay commits in: one per source-topic filter.
    static func replayGroup(_ base: String, sourceTopic: String?) -> String {
        sourceTopic.map { "\(base).\($0)" } ?? base
    }

    /// Reads every letter the group has not committed, as far as each
    /// partition's end when the read starts (then until no record arrives for
    /// ``drainWait``); `handle` runs per decodable letter before the batch's
    /// offsets are committed.
    /// - Throws: ``UnreadLetters`` when a partition's letters do not arrive
    ///   within ``unreadWait``, or the broker's error.
    static func read(
        _ messaging: MessagingSettings, group: String, commit: Bool,
        handle: (DeadLetterRecord) async throws -> Void
    ) async throws -> [(KafkaConsumerRecord, DeadLetterRecord?)] {
        // Where each partition ends now, for this group: the read is not done before it gets there.
        // An operator's command can wait for a slow broker longer than a probe would.
        let start = try await KafkaConsumerGroupLagReader(configuration: messaging.client, groupID: group)
            .lag(topic: Topics.deadLetter, timeout: .seconds(30))
        var unreadEnds = Dictionary(uniqueKeysWithValues: start.partitions.filter { $0.lag > 0 }.map { ($0.partition, $0.highWatermark) })
        if unreadEnds.isEmpty { return [] }
        let consumer = try KafkaConsumer(
            topics: [Topics.deadLetter],
            configuration: KafkaConsumerConfiguration(
                client: messaging.client, groupID: group, sessionTimeout: .milliseconds(2000), maxBatchSize: 500))
        var seen: [(KafkaConsumerRecord, DeadLetterRecord?)] = []
        do {
            while let batch = try await consumer.nextBatch(timeout: unreadEnds.isEmpty ? drainWait : unreadWait) {
                for record in batch.records {
                    let metadata = record.headers.first { $0.name == DeadLetterRecord.metadataHeader }.map { $0.value ?? [] }
                    let letter = DeadLetterRecord.fromWire(metadata: metadata, value: record.value)
                    if let letter { try await handle(letter) }
                    seen.append((record, letter))
                    if let end = unreadEnds[record.partition], record.offset + 1 >= end { unreadEnds[record.partition] = nil }
                }
                if commit { _ = try await consumer.commit(batch) }
            }
            if !unreadEnds.isEmpty { throw UnreadLetters(partitions: unreadEnds.keys.sorted(), wait: unreadWait) }
        } catch {
            await consumer.close()
            throw error
        }
        await consumer.close()
        return seen
    }

    /// Letters the read could not get to.
    struct UnreadLetters: Error, CustomStringConvertible {
        let partitions: [Int32]
        let wait: Duration

        var description: String {
            "\(Topics.deadLetter) partitions \(partitions.map(String.init).joined(separator: ",")) still hold unread letters, "
                + "but none arrived within \(Int(wait.inSeconds)) s; what was read is committed, run the command again for the rest"
        }
    }

    static func describe(_ record: KafkaConsumerRecord, _ letter: DeadLetterRecord?) -> String {
        guard let letter else { return "\(record.partition):\(record.offset) <not a dead-letter record>" }
        let failedAt = ISO8601DateFormatter().string(from: letter.failedAt)
        return "\(record.partition):\(record.offset) \(failedAt) from \(letter.sourceTopic)[\(letter.sourcePartition)@\(letter.sourceOffset)]"
            + " key=\(letter.sourceKey ?? "-") reason=\(letter.reason)"
    }
}
