import Timing

/// Settings for a ``KafkaProducer``. The producer is always idempotent
/// (`enable.idempotence=true`, `acks=all`): a retried send never duplicates
/// or reorders records within a partition.
public struct KafkaProducerConfiguration: Sendable {
    /// Brokers, client id, log handler and raw overrides.
    public var client: KafkaClientConfiguration
    /// How long librdkafka keeps trying to deliver a message before failing it
    /// with ``KafkaError/Code/messageTimedOut`` (`message.timeout.ms`).
    /// Default 30 seconds (librdkafka's own default is 5 minutes, too long to
    /// hold a webhook answer).
    public var messageTimeout: Duration
    /// How long to wait for more messages before sending a batch (`linger.ms`).
    /// Default zero: ``KafkaProducer/sendAndAwait(_:)`` answers fastest, and
    /// librdkafka still batches whatever queues up while a request is in flight.
    public var linger: Duration
    /// Most messages held in librdkafka's local queue (`queue.buffering.max.messages`).
    /// Default 100 000.
    public var maxQueuedMessages: Int
    /// How long a send waits for room when the local queue is full before it
    /// throws ``KafkaError/Code/queueFull``. Default 100 milliseconds.
    public var queueFullTimeout: Duration
    /// Called, on the producer's poll thread, for each fire-and-forget message
    /// (``KafkaProducer/send(_:)``) that could not be delivered. Default `nil`:
    /// failures are only counted (``KafkaProducer/counters``) and logged.
    public var deliveryFailureHandler: (@Sendable (KafkaUndeliveredMessage) -> Void)?
    /// How long the producer, run as a service, waits for queued messages when
    /// its group stops it (``KafkaProducer/run()``). Default 10 seconds.
    public var closeTimeout: Duration
    /// The topics this producer writes, as they must exist: re-created with
    /// these settings whenever the broker lost them (``KafkaTopicKeeper``).
    /// Default empty: nothing is re-created. The producer never lets the
    /// broker auto-create a topic either way (`allow.auto.create.topics=false`).
    public var topics: [KafkaTopicSpecification]
    /// How often the producer, run as a service, makes sure ``topics`` exist
    /// even when nothing failed (a broker restart that no send noticed yet).
    /// Default 30 seconds; zero turns the periodic check off.
    public var topicCheckInterval: Duration

    /// Creates a producer configuration with the documented defaults.
    public init(
        client: KafkaClientConfiguration,
        messageTimeout: Duration = .seconds(30),
        linger: Duration = .zero,
        maxQueuedMessages: Int = 100_000,
        queueFullTimeout: Duration = .milliseconds(100),
        deliveryFailureHandler: (@Sendable (KafkaUndeliveredMessage) -> Void)? = nil,
        closeTimeout: Duration = .seconds(10),
        topics: [KafkaTopicSpecification] = [],
        topicCheckInterval: Duration = .seconds(30)
    ) {
        self.client = client
        self.messageTimeout = messageTimeout
        self.linger = linger
        self.maxQueuedMessages = maxQueuedMessages
        self.queueFullTimeout = queueFullTimeout
        self.deliveryFailureHandler = deliveryFailureHandler
        self.closeTimeout = closeTimeout
        self.topics = topics
        self.topicCheckInterval = topicCheckInterval
    }

    /// The librdkafka properties for this configuration, overrides last.
    var properties: [String: String] {
        var result = client.properties
        result["enable.idempotence"] = "true"
        result["acks"] = "all"
        // Same key → same partition as the Java client, so other tools agree.
        result["partitioner"] = "murmur2_random"
        result["message.timeout.ms"] = String(messageTimeout.wholeMilliseconds)
        result["linger.ms"] = String(linger.wholeMilliseconds)
        result["queue.buffering.max.messages"] = String(maxQueuedMessages)
        // A producer's metadata request would otherwise create a missing topic
        // with the broker's defaults (Tansu: 4 partitions), for good.
        result["allow.auto.create.topics"] = "false"
        result.merge(client.extraProperties) { _, override in override }
        return result
    }
}
