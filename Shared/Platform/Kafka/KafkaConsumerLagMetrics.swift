import ServiceRuntime
import Telemetry

/// Publishes a consumer group's lag as `kafka_consumer_group_lag{group,topic,partition}`,
/// read from the broker on a timer rather than on each scrape, because the
/// read takes broker round trips and a scrape must answer at once.
///
/// It reads what the group has committed (the offsets every replica of the
/// service shares), so any replica's series give the whole group's lag;
/// dashboards take `max by (group, topic, partition)`. Broker caveat: Tansu
/// under-reports the high watermark when producers batch (see
/// ``KafkaConsumerGroupLagReader``), so the local stack's lag reads low.
public struct KafkaConsumerLagMetrics: Service {
    /// How often the lag is read: Prometheus's default scrape interval, so each
    /// scrape sees a value at most one interval old.
    public static let defaultInterval: Duration = .seconds(15)

    public let name = "consumer-lag"
    let source: any KafkaConsumerGroupLagSource
    let groupID: String
    let topics: [String]
    let interval: Duration
    let registry: MetricsRegistry
    let readFailures: Counter
    let logger: Logger

    /// - Parameters:
    ///   - source: the broker, or a fake in tests.
    ///   - groupID: the group, used as the `group` label.
    ///   - topics: the topics the group consumes.
    public init(
        source: any KafkaConsumerGroupLagSource, groupID: String, topics: [String], registry: MetricsRegistry, logger: Logger,
        interval: Duration = KafkaConsumerLagMetrics.defaultInterval
    ) {
        self.source = source
        self.groupID = groupID
        self.topics = topics
        self.interval = interval
        self.registry = registry
        self.logger = logger
        readFailures = registry.counter(
            "kafka_consumer_group_lag_read_failures_total", help: "Lag reads that failed (broker unreachable, unknown topic), by group.",
            labels: ["group": groupID])
    }

    /// Creates the broker-backed monitor for `groupID`.
    /// - Throws: what ``KafkaConsumerGroupLagReader/init(configuration:groupID:)`` throws.
    public init(
        configuration: KafkaClientConfiguration, groupID: String, topics: [String], registry: MetricsRegistry, logger: Logger
    ) throws {
        let reader = try KafkaConsumerGroupLagReader(configuration: configuration, groupID: groupID)
        self.init(source: reader, groupID: groupID, topics: topics, registry: registry, logger: logger)
    }

    public func run() async throws {
        while !Task.isCancelled {
            await refresh()
            try? await Task.sleep(for: interval)
        }
    }

    /// Reads every topic's lag once and sets the gauges. A topic whose read
    /// fails keeps its last values (and the failure is counted), so one slow
    /// broker request does not blank a dashboard.
    func refresh() async {
        for topic in topics {
            do {
                record(try await source.lag(topic: topic, timeout: .seconds(5)))
            } catch {
                readFailures.increment()
                logger.debug("consumer lag not read", metadata: ["kafka.topic": topic, "kafka.group": groupID, "error": "\(error)"])
            }
        }
    }

    func record(_ lag: KafkaConsumerGroupLag) {
        for partition in lag.partitions {
            registry.gauge(
                "kafka_consumer_group_lag",
                help: "Records a consumer group has not committed yet (high watermark minus committed offset), per topic and partition.",
                labels: ["group": lag.groupID, "topic": lag.topic, "partition": String(partition.partition)]
            ).set(Double(partition.lag))
        }
    }
}
