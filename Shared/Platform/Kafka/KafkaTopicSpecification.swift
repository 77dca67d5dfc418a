/// A topic to create with ``KafkaAdmin/createTopics(_:timeout:)``.
public struct KafkaTopicSpecification: Sendable, Hashable {
    /// The topic name.
    public var name: String
    /// Number of partitions. Default 1.
    public var partitions: Int32
    /// Copies of each partition. Default 1 (a single local broker).
    public var replicationFactor: Int16
    /// Topic configuration such as `cleanup.policy=compact`. Default empty.
    public var config: [String: String]

    /// Creates a topic specification.
    public init(name: String, partitions: Int32 = 1, replicationFactor: Int16 = 1, config: [String: String] = [:]) {
        self.name = name
        self.partitions = partitions
        self.replicationFactor = replicationFactor
        self.config = config
    }
}
