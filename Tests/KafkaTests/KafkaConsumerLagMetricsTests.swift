import Testing
@testable import Kafka
import Telemetry

@Suite struct KafkaConsumerLagMetricsTests {
    /// Answers from a table; a topic missing from it fails like an unknown topic.
    struct FakeLagSource: KafkaConsumerGroupLagSource {
        let lags: [String: KafkaConsumerGroupLag]
        func lag(topic: String, timeout: Duration) async throws -> KafkaConsumerGroupLag {
            guard let lag = lags[topic] else { throw KafkaError(.unknownTopic, reason: topic) }
            return lag
        }
    }

    @Test func setsOneGaugePerPartitionAndCountsFailedReads() async {
        let registry = MetricsRegistry()
        let lag = KafkaConsumerGroupLag(
            groupID: "projector", topic: "t",
            partitions: [
                .init(partition: 0, lowWatermark: 0, highWatermark: 10, committedOffset: 4),
                .init(partition: 1, lowWatermark: 3, highWatermark: 7, committedOffset: nil),
            ])
        let metrics = KafkaConsumerLagMetrics(
            source: FakeLagSource(lags: ["t": lag]), groupID: "projector", topics: ["t", "missing"], registry: registry,
            logger: Logger(service: "test", minimumLevel: .critical))
        await metrics.refresh()
        let text = registry.renderPrometheus()
        #expect(text.contains("kafka_consumer_group_lag{group=\"projector\",partition=\"0\",topic=\"t\"} 6\n"))
        #expect(text.contains("kafka_consumer_group_lag{group=\"projector\",partition=\"1\",topic=\"t\"} 4\n"))
        #expect(text.contains("kafka_consumer_group_lag_read_failures_total{group=\"projector\"} 1\n"))
        #expect(!text.contains("topic=\"missing\""))
    }
}
