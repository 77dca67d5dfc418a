/// Where a consumer group's lag comes from: the broker
/// (``KafkaConsumerGroupLagReader``) or, in unit tests, a fake.
public protocol KafkaConsumerGroupLagSource: Sendable {
    /// The group's lag on every partition of `topic`.
    func lag(topic: String, timeout: Duration) async throws -> KafkaConsumerGroupLag
}

extension KafkaConsumerGroupLagReader: KafkaConsumerGroupLagSource {}
