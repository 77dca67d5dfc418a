/// A partition of a topic.
public struct KafkaTopicPartition: Sendable, Hashable, CustomStringConvertible {
    /// The topic name.
    public var topic: String
    /// The partition number.
    public var partition: Int32

    /// Creates a topic-partition pair.
    public init(topic: String, partition: Int32) {
        self.topic = topic
        self.partition = partition
    }

    public var description: String { "\(topic)[\(partition)]" }
}
