/// A record to produce.
public struct KafkaProducerMessage: Sendable, Hashable {
    /// The topic to write to.
    public var topic: String
    /// Explicit partition, or `nil` to let the partitioner pick one from the key.
    public var partition: Int32?
    /// The record key; records with the same key land in the same partition.
    public var key: [UInt8]?
    /// The record value; `nil` is a tombstone (deletes the key in a compacted topic).
    public var value: [UInt8]?
    /// Record headers, in order.
    public var headers: [KafkaHeader]

    /// Creates a message with a byte key.
    public init(
        topic: String, partition: Int32? = nil, key: [UInt8]?, value: [UInt8]?,
        headers: [KafkaHeader] = []
    ) {
        self.topic = topic
        self.partition = partition
        self.key = key
        self.value = value
        self.headers = headers
    }

    /// Creates a message whose key is the UTF-8 bytes of `key`.
    public init(
        topic: String, partition: Int32? = nil, key: String, value: [UInt8]?,
        headers: [KafkaHeader] = []
    ) {
        self.init(topic: topic, partition: partition, key: Array(key.utf8), value: value, headers: headers)
    }
}
