import Timing
import ServiceSettings
import Telemetry

/// The broker settings every Storefront service shares, read from the
/// environment: `KAFKA_BROKERS` (required, comma-separated `host:port`),
/// `KAFKA_CLIENT_ID` (default: the service name), `KAFKA_TOPIC_PARTITIONS`
/// (default 6, so the projector can scale to six members),
/// `KAFKA_REPLICATION_FACTOR` (default 1; 3 with three brokers),
/// `KAFKA_TOPIC_RETENTION` (default 30 days: webhooks and dead letters stay
/// replayable that long) and `KAFKA_MAX_MESSAGE_BYTES` (default 4 MiB: the
/// largest webhook envelope, dead-lettered, fits), `KAFKA_PUBLISH_READINESS_WINDOW`
/// (default 10 s: ``publishReadinessWindow``), `KAFKA_TOPIC_CHECK_INTERVAL`
/// (default 30 s: ``topicCheckInterval``), and TLS and SASL to the
/// brokers (``KafkaSecurity/fromEnvironment(_:logger:)``: `KAFKA_SECURITY_PROTOCOL`, `KAFKA_SASL_*`, `KAFKA_SSL_*`).
public struct MessagingSettings: Sendable {
    public var client: KafkaClientConfiguration
    public var topicPartitions: Int
    public var replicationFactor: Int
    /// How long the broker keeps records (`retention.ms` of every topic).
    public var retention: Duration
    /// A publishing service's `/readyz` fails while its producer has records
    /// that waited this long without any delivery, or had a delivery fail
    /// less than this long ago with none succeeding since
    /// (``KafkaProducer/checkPublishing(window:)``).
    public var publishReadinessWindow: Duration
    /// How often producers make sure the topics they write exist
    /// (``KafkaProducerConfiguration/topicCheckInterval``).
    public var topicCheckInterval: Duration

    public init(
        client: KafkaClientConfiguration, topicPartitions: Int = 6, replicationFactor: Int = 1,
        retention: Duration = MessagingSettings.defaultRetention, publishReadinessWindow: Duration = .seconds(10),
        topicCheckInterval: Duration = .seconds(30)
    ) {
        self.client = client
        self.topicPartitions = topicPartitions
        self.replicationFactor = replicationFactor
        self.retention = retention
        self.publishReadinessWindow = publishReadinessWindow
        self.topicCheckInterval = topicCheckInterval
    }

    public static let defaultRetention = Duration.seconds(30 * 86_400)

    public static func fromEnvironment(_ reader: inout ConfigReader, service: String, logger: Logger) -> MessagingSettings {
        let brokers = reader.required.list(.kafkaBrokers)
        var client = KafkaClientConfiguration(bootstrapServers: brokers, clientID: reader.string(.kafkaClientID, default: service))
        client.maxMessageBytes = reader.int(
            .kafkaMaxMessageBytes, default: KafkaClientConfiguration.defaultMaxMessageBytes,
            in: (1 << 20)...(64 << 20))
        client.consumerPrefetchBytes = reader.int(
            .kafkaConsumerPrefetchBytes, default: KafkaClientConfiguration.defaultConsumerPrefetchBytes, in: (1 << 20)...(1 << 30))
        client.security = KafkaSecurity.fromEnvironment(&reader, logger: logger)
        client.logHandler = { level, message in
            // librdkafka's own lines join the service's JSON log; debug chatter stays out.
            guard level >= .warning else { return }
            logger.warning("kafka: \(message)", metadata: ["kafka.level": String(describing: level)])
        }
        return MessagingSettings(
            client: client,
            topicPartitions: reader.int(.kafkaTopicPartitions, default: 6, in: 1...1024),
            replicationFactor: reader.int(.kafkaReplicationFactor, default: 1, in: 1...16),
            retention: reader.duration(.kafkaTopicRetention, default: defaultRetention),
            publishReadinessWindow: reader.duration(.kafkaPublishReadinessWindow, default: .seconds(10)),
            topicCheckInterval: reader.duration(.kafkaTopicCheckInterval, default: .seconds(30)))
    }

    /// A producer configuration that keeps `topics` in existence with
    /// ``topicSpecifications(_:)``, checked every ``topicCheckInterval``; the
    /// other settings at their defaults unless given.
    public func producerConfiguration(
        declaring topics: [String], messageTimeout: Duration = .seconds(30), closeTimeout: Duration = .seconds(10)
    ) -> KafkaProducerConfiguration {
        KafkaProducerConfiguration(
            client: client, messageTimeout: messageTimeout, closeTimeout: closeTimeout,
            topics: topicSpecifications(topics), topicCheckInterval: topicCheckInterval)
    }

    /// The specifications of `topics` (Storefront's are `Topics.all`, as
    /// docs/architecture.md, "Kafka topics", lists them). Every topic is an
    /// event log (delete policy, nothing compacted away) kept for
    /// ``retention``, taking records as large as the clients send. Set when a
    /// topic is created; an existing topic keeps its settings (change them
    /// with the broker's tools).
    public func topicSpecifications(_ topics: [String]) -> [KafkaTopicSpecification] {
        let retentionMilliseconds = retention.wholeMilliseconds
        // A name given twice would be asked for twice in one CreateTopics
        // request, which a broker answers with a response librdkafka refuses.
        var seen = Set<String>()
        return topics.filter { seen.insert($0).inserted }.map {
            KafkaTopicSpecification(
                name: $0, partitions: Int32(topicPartitions), replicationFactor: Int16(replicationFactor),
                config: [
                    "cleanup.policy": "delete", "retention.ms": String(retentionMilliseconds),
                    "max.message.bytes": String(client.maxMessageBytes),
                ])
        }
    }

    /// Creates each of `topics` that does not exist yet (idempotent; safe
    /// when several services start at once).
    public func ensureTopics(_ topics: [String]) async throws {
        let admin = try KafkaAdmin(configuration: client)
        try await admin.createTopics(topicSpecifications(topics))
    }
}
