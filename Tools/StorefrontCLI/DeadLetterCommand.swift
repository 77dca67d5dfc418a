import Basics
import Foundation
import Kafka
import Models
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
    /// How long a read waits for more records before deciding the topic is drained.
    static let drainWait: Duration = .seconds(3)
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
            let group = replayGroup(arguments.options["group"] ?? replayGroup, sourceTopic: sourceTopic)
            _ = try await read(messaging, group: group, commit: true) { letter in
                guard selected(letter) else { return }
                _ = try await producer.sendAndAwait(
                    KafkaProducerMessage(
                        topic: letter.sourceTopic, key: letter.sourceKey.map { Array($0.utf8) }, value: letter.sourceValue.bytes))
                replayed += 1
            }
            let undelivered = await producer.shutdown()
            output("replayed \(replayed) dead letter(s)" + (undelivered.isEmpty ? "" : ", \(undelivered.count) not delivered"))
        default:
            throw CommandLineArguments.UsageError(description: "usage: storefront deadletter list|replay")
        }
    }

    /// The consumer group a replay commits in: one per source-topic filter.
    static func replayGroup(_ base: String, sourceTopic: String?) -> String {
        sourceTopic.map { "\(base).\($0)" } ?? base
    }

    /// Reads until no record arrives for ``drainWait``; `handle` runs per
    /// decodable letter before the batch's offsets are committed.
    static func read(
        _ messaging: MessagingSettings, group: String, commit: Bool,
        handle: (DeadLetterRecord) async throws -> Void
    ) async throws -> [(KafkaConsumerRecord, DeadLetterRecord?)] {
        let consumer = try KafkaConsumer(
            topics: [Topics.deadLetter],
            configuration: KafkaConsumerConfiguration(
                client: messaging.client, groupID: group, sessionTimeout: .milliseconds(2000), maxBatchSize: 500))
        var seen: [(KafkaConsumerRecord, DeadLetterRecord?)] = []
        do {
            // The first join of a new group takes about a second on Tansu; wait longer for the first batch.
            var wait = Duration.seconds(10)
            while let batch = try await consumer.nextBatch(timeout: wait) {
                for record in batch.records {
                    let letter = record.value.flatMap { try? RecordCoding.decode(DeadLetterRecord.self, from: $0) }
                    if let letter { try await handle(letter) }
                    seen.append((record, letter))
                }
                if commit { _ = try await consumer.commit(batch) }
                wait = drainWait
            }
        } catch {
            await consumer.close()
            throw error
        }
        await consumer.close()
        return seen
    }

    static func describe(_ record: KafkaConsumerRecord, _ letter: DeadLetterRecord?) -> String {
        guard let letter else { return "\(record.partition):\(record.offset) <not a dead-letter record>" }
        let failedAt = ISO8601DateFormatter().string(from: letter.failedAt)
        return "\(record.partition):\(record.offset) \(failedAt) from \(letter.sourceTopic)[\(letter.sourcePartition)@\(letter.sourceOffset)]"
            + " key=\(letter.sourceKey ?? "-") reason=\(letter.reason)"
    }
}
