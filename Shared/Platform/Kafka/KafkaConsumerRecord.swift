/// A record read from a topic.
public struct KafkaConsumerRecord: Sendable, Hashable {
    /// The topic it was read from.
    public var topic: String
    /// The partition it was read from.
    public var partition: Int32
    /// Its offset in that partition.
    public var offset: Int64
    /// The record key, if any.
    public var key: [UInt8]?
    /// The record value; `nil` for a tombstone.
    public var value: [UInt8]?
    /// Record headers, in order.
    public var headers: [KafkaHeader]
    /// The record's timestamp in milliseconds since 1970 (create or log-append
    /// time, as the topic is configured), or `nil` when the broker sent none.
    public var timestampMilliseconds: Int64?

    /// Creates a record (for tests and fakes; consumers make their own).
    public init(
        topic: String, partition: Int32, offset: Int64, key: [UInt8]?, value: [UInt8]?,
        headers: [KafkaHeader] = [], timestampMilliseconds: Int64? = nil
    ) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
        self.headers = headers
        self.timestampMilliseconds = timestampMilliseconds
    }

    /// Where this record lives.
    public var topicPartition: KafkaTopicPartition {
        KafkaTopicPartition(topic: topic, partition: partition)
    }
}
