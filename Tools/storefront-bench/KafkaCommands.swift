import Timing
import Foundation
import Kafka
import BillingModel
import Postgres
import Synchronization
import Webhooks

private func clientConfiguration(_ brokers: String, _ clientID: String) -> KafkaClientConfiguration {
    KafkaClientConfiguration(bootstrapServers: brokers.split(separator: ",").map(String.init), clientID: clientID)
}

/// `backlog`: produces `count` envelopes into `storefront.webhooks.v1`
/// exactly as the receiver publishes them (``ProviderWebhooks/read(_:body:receivedAt:)``
/// for the envelope and key, ``WebhookEnvelope/encodedRecord()`` for the bytes),
/// before any projector runs.
enum BacklogCommand {
    static func run(_ options: Options) async throws {
        let brokers = try options.string("brokers")
        let count = try options.int("count", in: 1...10_000_000)
        let subscriptions = try options.int("subscriptions", default: max(1, count / 5), in: 1...10_000_000)
        let bodyBytes = try options.int("body-bytes", default: 0, in: 0...1_000_000)
        let runID = options.string("run-id", default: String(format: "%08x", UInt32.random(in: 0...UInt32.max)))
        let topic = options.string("topic", default: Topics.webhooks)
        let producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(
                client: clientConfiguration(brokers, "storefront-bench-backlog"), messageTimeout: .seconds(300),
                linger: .milliseconds(5), maxQueuedMessages: 100_000, queueFullTimeout: .seconds(120)))
        let shape = WebhookBodies.PlanShape(
            runID: runID, deliveries: count, subscriptions: subscriptions, bodyBytes: bodyBytes, ownership: try Options.ownershipProof())
        let clock = ContinuousClock()
        let started = clock.now
        let failures = Mutex<[String]>([])
        let bytes = Atomic<Int>(0)
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var position = worker
            var produced = 0
            while position < count {
                let (_, _, body) = shape.body(at: position)
                let read = ProviderWebhooks.read(.lemonsqueezy, body: body, receivedAt: Date())
                let value = read.envelope.encodedRecord()
                produced += value.count
                do {
                    try producer.send(KafkaProducerMessage(topic: topic, key: read.topicKey, value: value))
                } catch {
                    failures.withLock { if $0.count < 5 { $0.append("\(error)") } }
                }
                position += workers
            }
            bytes.wrappingAdd(produced, ordering: .relaxed)
        }
        let undelivered = await producer.shutdown(timeout: .seconds(300))
        let elapsed = (clock.now - started).inSeconds
        let counters = producer.counters
        let failed = failures.withLock { $0 }
        if !failed.isEmpty || !undelivered.isEmpty || counters.delivered != count {
            note("backlog: \(counters.delivered) of \(count) delivered, \(undelivered.count) undelivered; \(failed.joined(separator: "; "))")
            throw Options.Invalid(description: "the backlog was not produced completely")
        }
        let total = bytes.load(ordering: .relaxed)
        result([
            "records": String(count), "subscriptions": String(shape.subscriptions), "run_id": runID,
            "mean_record_bytes": String(total / count), "mean_body_bytes": String(shape.body(at: 0).body.count),
            "seconds": fixed(elapsed, 2),
        ])
    }
}

/// `topic-count`: reads a topic from the beginning with a fresh consumer group
/// and counts its records (Tansu 0.6 under-reports high watermarks, so the
/// records are counted, not the offsets). With `--ids FILE`, also checks that
/// every webhook id in FILE (one a line) is in some record's envelope.
enum TopicCountCommand {
    static func run(_ options: Options) async throws {
        let brokers = try options.string("brokers")
        let topic = options.string("topic", default: Topics.webhooks)
        let expect = try options.int("expect", default: 0)
        let idleSeconds = try options.double("idle", default: 3)
        let idsPath = options.optionalString("ids")
        let consumer = try KafkaConsumer(
            topics: [topic],
            configuration: KafkaConsumerConfiguration(
                client: clientConfiguration(brokers, "storefront-bench-count"),
                groupID: "storefront-bench-count-\(UUID().uuidString.prefix(8))",
                maxBatchSize: 10_000, maxBatchWait: .milliseconds(100)))
        let clock = ContinuousClock()
        let started = clock.now
        var last: ContinuousClock.Instant?
        var records = 0
        var ids = Set<String>()
        var undecodable = 0
        while true {
            if let batch = try await consumer.nextBatch(timeout: .milliseconds(500)) {
                records += batch.records.count
                last = clock.now
                if idsPath != nil {
                    for record in batch.records {
                        if let value = record.value, let envelope = try? RecordCoding.decode(WebhookEnvelope.self, from: value) {
                            ids.insert(envelope.id)
                        } else {
                            undecodable += 1
                        }
                    }
                }
                continue
            }
            let now = clock.now
            if let last {
                if records >= expect, now - last > .milliseconds(1000) { break }
                if (now - last).inSeconds > idleSeconds { break }
            } else if now - started > .seconds(30) {
                break
            }
        }
        await consumer.close()
        var missing = 0
        var checked = 0
        if let idsPath {
            let text = (try? String(contentsOfFile: idsPath, encoding: .utf8)) ?? ""
            for id in text.split(separator: "\n") {
                checked += 1
                if !ids.contains("lemonsqueezy:\(id)") { missing += 1 }
            }
        }
        result([
            "records": String(records), "distinct_ids": String(ids.count), "checked_ids": String(checked),
            "missing_ids": String(missing), "undecodable": String(undecodable),
        ])
    }
}

/// `catchup-wait`: follows a projector group's committed offsets on
/// `storefront.webhooks.v1` (read without joining the group) until they cover
/// `expect` records, then checks `billing_events` holds them. The projector
/// commits only after its transaction, so a covered offset is a durable row.
enum CatchupWaitCommand {
    static func run(_ options: Options) async throws {
        let brokers = try options.string("brokers")
        let group = try options.string("group")
        let expect = try options.int("expect", in: 1...Int.max)
        let startedAt = try options.double("started-at", default: wallSeconds())
        let timeout = try options.double("timeout", default: 900)
        let databaseURL = try options.string("database-url")
        let reader = try KafkaConsumerGroupLagReader(configuration: clientConfiguration(brokers, "storefront-bench-lag"), groupID: group)
        var first: (time: Double, committed: Int64)?
        var committed: Int64 = 0
        var lastNote = wallSeconds()
        var doneAt: Double?
        while wallSeconds() - startedAt < timeout {
            if let lag = try? await reader.lag(topic: Topics.webhooks, timeout: .seconds(2)) {
                let now = wallSeconds()
                committed = lag.partitions.reduce(Int64(0)) { $0 + ($1.committedOffset ?? 0) }
                if first == nil, committed > 0 { first = (now, committed) }
                if committed >= Int64(expect) { doneAt = now; break }
                if now - lastNote >= 15 {
                    note("    catch-up: \(committed) of \(expect) committed after \(fixed(now - startedAt, 0)) s")
                    lastNote = now
                }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        let end = doneAt ?? wallSeconds()
        // Every committed record must be a row (or a dead letter, which the bench's bodies never are).
        let connection = try await PostgresConnection.connect(PostgresConfiguration(url: databaseURL))
        var rows = 0
        for _ in 0..<100 {
            rows = try await connection.query("SELECT count(*) FROM billing_events").first?.decode(column: 0, as: Int.self) ?? 0
            if rows >= expect || doneAt == nil { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        await connection.close()
        let applied = Double(committed - (first?.committed ?? 0))
        let window = end - (first?.time ?? end)
        result([
            "complete": doneAt == nil ? "no" : "yes", "committed": String(committed), "rows": String(rows),
            "seconds_total": fixed(end - startedAt, 2), "seconds_to_first_commit": fixed((first?.time ?? end) - startedAt, 2),
            "rate_total": fixed(Double(committed) / max(end - startedAt, 0.001), 1),
            "rate_apply": fixed(window > 0 ? applied / window : .nan, 1),
        ])
    }
}

/// `topics`: creates Storefront's topics on a broker exactly as a service
/// does at start-up (``MessagingSettings/ensureTopics(_:)`` at the services'
/// defaults), for a receiver that does not create them itself: the bench's
/// Python baseline then writes to the same six partitions as the Swift one.
enum TopicsCommand {
    static func run(_ options: Options) async throws {
        let brokers = try options.string("brokers")
        try await MessagingSettings(client: clientConfiguration(brokers, "storefront-bench-topics")).ensureTopics(Topics.all)
        result(["topics": String(Topics.all.count)])
    }
}
