import Foundation
import Kafka
import BillingModel
import Synchronization

/// Reads topics of the shared broker from their start, in the background, in
/// a consumer group of its own that never commits, and keeps every record it
/// reads, so a test can wait for the records it made among the other suites'
/// records on the same topics. The topics must exist before it starts.
///
/// Not for tests of consumer groups themselves (commits, redelivery,
/// rebalances): those make their own ``KafkaConsumer``.
public final class TopicReader: Sendable {
    /// The records read so far, shared with the reading task.
    private final class Store: Sendable {
        let records = Mutex<[KafkaConsumerRecord]>([])
    }

    private let consumer: KafkaConsumer
    private let store = Store()
    private let reading: Task<Void, Never>

    /// Starts reading `topics` in a new group named after `clientID`.
    /// - Parameter brokers: nil for `KAFKA_BROKERS`, the shared broker; a live
    ///   stack's own broker (its `KAFKA_BROKERS` setting) to read that stack's records.
    public init(topics: [String], clientID: String = "storefront-tests", brokers: [String]? = nil) throws {
        let brokers = try brokers ?? TestEnvironment.kafkaBrokers()
        let group = "\(clientID)-\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased())"
        consumer = try KafkaConsumer(
            topics: topics,
            configuration: KafkaConsumerConfiguration(
                client: KafkaClientConfiguration(bootstrapServers: brokers, clientID: clientID), groupID: group,
                sessionTimeout: .milliseconds(2000), heartbeatInterval: .milliseconds(500), maxBatchSize: 500,
                maxBatchWait: .milliseconds(50)))
        reading = Self.read(consumer, into: store)
    }

    private static func read(_ consumer: KafkaConsumer, into store: Store) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                do {
                    guard let batch = try await consumer.nextBatch(timeout: .milliseconds(200)) else { continue }
                    store.records.withLock { $0.append(contentsOf: batch.records) }
                } catch {
                    if Task.isCancelled { return }
                    try? await Task.sleep(for: .milliseconds(50))
                }
            }
        }
    }

    /// Every record read so far, in the order read.
    public var records: [KafkaConsumerRecord] { store.records.withLock { $0 } }

    /// The records read so far whose value is a JSON object, with their keys as
    /// text, in the order read (for suites that look at records as JSON).
    public var jsonRecords: [(key: String, value: [String: Any])] {
        records.compactMap { record in
            guard let value = record.value, let object = try? JSONSerialization.jsonObject(with: Data(value)) as? [String: Any] else {
                return nil
            }
            return (record.key.map { String(decoding: $0, as: UTF8.self) } ?? "", object)
        }
    }

    /// The records read so far whose value decodes as `T` (``RecordCoding``), each with its record.
    public func decoded<T: Decodable>(_ type: T.Type) -> [(value: T, record: KafkaConsumerRecord)] {
        records.compactMap { record in Self.decode(type, record).map { ($0, record) } }
    }

    /// Waits, with ``eventually(timeout:every:_:)``, for the first record `match`
    /// accepts; nil when none arrived in `timeout`.
    public func first(timeout: Duration = .seconds(60), where match: (KafkaConsumerRecord) -> Bool) async -> KafkaConsumerRecord? {
        var checked = 0
        var found: KafkaConsumerRecord?
        _ = await eventually(timeout: timeout, every: .milliseconds(20)) {
            let fresh = store.records.withLock { Array($0[checked...]) }
            checked += fresh.count
            found = fresh.first(where: match)
            return found != nil
        }
        return found
    }

    /// ``first(timeout:where:)`` for the first record whose value decodes as `T`
    /// and is accepted by `match` (records that do not decode are skipped).
    public func first<T: Decodable>(
        _ type: T.Type, timeout: Duration = .seconds(60), where match: (T, KafkaConsumerRecord) -> Bool
    ) async -> (value: T, record: KafkaConsumerRecord)? {
        var value: T?
        let record = await first(timeout: timeout) { record in
            guard let decoded = Self.decode(type, record), match(decoded, record) else { return false }
            value = decoded
            return true
        }
        guard let record, let value else { return nil }
        return (value, record)
    }

    /// Stops reading and leaves the group.
    public func close() async {
        reading.cancel()
        await reading.value
        await consumer.close()
    }

    /// Reads `topic` with a new reader until `match` accepts a record decoded
    /// as `T`, then closes the reader; nil when none arrived in `timeout`.
    public static func first<T: Decodable>(
        _ type: T.Type, topic: String, clientID: String = "storefront-tests", timeout: Duration = .seconds(60),
        where match: (T, KafkaConsumerRecord) -> Bool
    ) async throws -> (value: T, record: KafkaConsumerRecord)? {
        let reader = try TopicReader(topics: [topic], clientID: clientID)
        let found = await reader.first(type, timeout: timeout, where: match)
        await reader.close()
        return found
    }

    /// Reads `topic` with a new reader until `match` accepts a record, then
    /// closes the reader; nil when none arrived in `timeout`.
    public static func first(
        topic: String, clientID: String = "storefront-tests", timeout: Duration = .seconds(60),
        where match: (KafkaConsumerRecord) -> Bool
    ) async throws -> KafkaConsumerRecord? {
        let reader = try TopicReader(topics: [topic], clientID: clientID)
        let found = await reader.first(timeout: timeout, where: match)
        await reader.close()
        return found
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ record: KafkaConsumerRecord) -> T? {
        guard let value = record.value else { return nil }
        return try? RecordCoding.decode(type, from: value)
    }
}
