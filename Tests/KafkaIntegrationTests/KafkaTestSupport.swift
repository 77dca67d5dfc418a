import Foundation
import Kafka
import TestSupport
import Testing

/// Shared set-up for the integration suites: the broker from KAFKA_BROKERS,
/// unique names (suites run in parallel), and small helpers.
enum KafkaTestSupport {
    /// The shared test broker; fails the test loudly when it is not set.
    static func brokers() throws -> [String] {
        try TestEnvironment.kafkaBrokers()
    }

    /// A name no other test (or earlier run) uses.
    static func uniqueName(_ prefix: String) -> String {
        "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// A client configuration for the test broker (default log handler: warnings to stderr).
    static func client(_ brokers: [String], extra: [String: String] = [:]) -> KafkaClientConfiguration {
        KafkaClientConfiguration(bootstrapServers: brokers, clientID: "kafka-tests", extraProperties: extra)
    }

    /// Creates `topic` with `partitions` partitions through the admin API.
    static func createTopic(_ topic: String, partitions: Int32, brokers: [String]) async throws {
        let admin = try KafkaAdmin(configuration: client(brokers))
        try await admin.createTopics([KafkaTopicSpecification(name: topic, partitions: partitions)])
    }

    static func consumerConfiguration(_ brokers: [String], group: String, maxBatchSize: Int = 100) -> KafkaConsumerConfiguration {
        KafkaConsumerConfiguration(
            client: client(brokers), groupID: group, sessionTimeout: .milliseconds(6000),
            maxBatchSize: maxBatchSize, maxBatchWait: .milliseconds(50))
    }

    /// Reads batches until `enough` says stop or `timeout` passes.
    static func consume(
        _ consumer: KafkaConsumer, timeout: Duration = .seconds(30),
        until enough: ([KafkaConsumerRecord]) -> Bool, each: (KafkaConsumerBatch) async throws -> Void = { _ in }
    ) async throws -> [KafkaConsumerRecord] {
        var records: [KafkaConsumerRecord] = []
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while !enough(records), ContinuousClock.now < deadline {
            guard let batch = try await consumer.nextBatch(timeout: .milliseconds(500)) else { continue }
            records += batch.records
            try await each(batch)
        }
        return records
    }
}
