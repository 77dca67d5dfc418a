import Foundation
import Kafka
import BillingModel

/// Where webhooks missing from PostgreSQL went: reads the whole webhooks topic
/// in a consumer group of its own (which never commits, so it changes nothing
/// for the projectors) and says, for each missing dedup key, whether the
/// broker holds it and where. Present means the consumers skipped it; absent
/// means the broker acknowledged a record it does not hold (or the receiver
/// answered 2xx without publishing).
struct TopicAudit {
    struct Finding: Sendable {
        /// Missing keys found in the topic, with where.
        var found: [(key: String, partition: Int32, offset: Int64)] = []
        /// Missing keys the topic does not hold.
        var absent: [String] = []
        /// Records read from the topic in all.
        var recordsRead = 0
        /// Records of this run read more than once (same key in two offsets).
        var storedTwice = 0

        var lines: [String] {
            var lines = [
                "topic audit: \(recordsRead) records read; \(found.count) of the missing are in the topic, \(absent.count) are not"
                    + (storedTwice > 0 ? "; \(storedTwice) of this run's ids stored at two offsets" : "")
            ]
            lines += found.prefix(5).map { "  in the topic: \($0.key) at partition \($0.partition) offset \($0.offset)" }
            lines += absent.prefix(5).map { "  not in the topic: \($0)" }
            return lines
        }
    }

    let brokers: [String]
    let topic: String

    /// Reads until the topic has been quiet for `quiet` (or `limit` passes).
    func locate(missing: Set<String>, runPrefix: String, quiet: Duration = .seconds(5), limit: Duration = .seconds(90)) async throws -> Finding {
        let consumer = try KafkaConsumer(
            topics: [topic],
            configuration: KafkaConsumerConfiguration(
                client: KafkaClientConfiguration(bootstrapServers: brokers, clientID: "scale-demo-audit", logHandler: nil),
                groupID: "scale-demo-audit-\(UUID().uuidString)", autoOffsetReset: .earliest, maxBatchSize: 10_000))
        var finding = Finding()
        var seen = Set<String>()
        let deadline = ContinuousClock.now + limit
        // The first batch waits for the group to form; after that, `quiet` without a record ends the read.
        var wait: Duration = .seconds(30)
        while ContinuousClock.now < deadline, let batch = try await consumer.nextBatch(timeout: wait) {
            wait = quiet
            for record in batch.records {
                finding.recordsRead += 1
                guard let value = record.value, let key = try? RecordCoding.decode(WebhookEnvelope.self, from: value).id, key.hasPrefix(runPrefix)
                else { continue }
                if !seen.insert(key).inserted { finding.storedTwice += 1 }
                if missing.contains(key) { finding.found.append((key, record.partition, record.offset)) }
            }
        }
        await consumer.close()
        let foundKeys = Set(finding.found.map(\.key))
        finding.absent = missing.subtracting(foundKeys).sorted()
        return finding
    }
}
