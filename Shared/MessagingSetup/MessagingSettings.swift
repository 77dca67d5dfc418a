import Kafka
import Models
import ServiceRuntime
import Telemetry

/// The broker settings every Storefront service shares, read from the
/// environment: `KAFKA_BROKERS` (required, comma-separated `host:port`),
/// `KAFKA_CLIENT_ID` (default: the service name), `KAFKA_TOPIC_PARTITIONS`
/// (default 6, so the projector can scale to six members) and
/// `KAFKA_REPLICATION_FACTOR` (default 1; 3 with three brokers).
public struct MessagingSettings: Sendable {
    public var client: KafkaClientConfiguration
    public var topicPartitions: Int
    public var replicationFactor: Int

    public init(client: KafkaClientConfiguration, topicPartitions: Int = 6, replicationFactor: Int = 1) {
        self.client = client
        self.topicPartitions = topicPartitions
        self.replicationFactor = replicationFactor
    }

    public static func fromEnvironment(_ reader: inout ConfigReader, service: String, logger: Logger) -> MessagingSettings {
        let brokers = reader.required.list("KAFKA_BROKERS")
        var client = KafkaClientConfiguration(bootstrapServers: brokers, clientID: reader.string("KAFKA_CLIENT_ID", default: service))
        client.logHandler = { level, message in
            // librdkafka's own lines join the service's JSON log; debug chatter stays out.
            guard level >= .warning else { return }
            logger.warning("kafka: \(message)", metadata: ["kafka.level": String(describing: level)])
        }
        return MessagingSettings(
            client: client,
            topicPartitions: reader.int("KAFKA_TOPIC_PARTITIONS", default: 6, in: 1...1024),
            replicationFactor: reader.int("KAFKA_REPLICATION_FACTOR", default: 1, in: 1...16))
    }

    /// Storefront's topics as DESIGN.md lists them. Every topic is an event
    /// log (delete policy, long retention), so nothing is compacted away.
    public var topicSpecifications: [KafkaTopicSpecification] {
        Topics.all.map {
            KafkaTopicSpecification(name: $0, partitions: Int32(topicPartitions), replicationFactor: Int16(replicationFactor),
                                    config: ["cleanup.policy": "delete"])
        }
    }

    /// Creates every Storefront topic that does not exist yet (idempotent; safe
    /// when several services start at once).
    public func ensureTopics() async throws {
        let admin = try KafkaAdmin(configuration: client)
        try await admin.createTopics(topicSpecifications)
    }
}
