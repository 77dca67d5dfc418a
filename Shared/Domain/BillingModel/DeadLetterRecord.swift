import Foundation

/// The value of a `storefront.deadletter.v1` record: a source record a
/// consumer could not apply, kept whole so the operator CLI can replay it.
/// Its key is the source record's key.
public struct DeadLetterRecord: Codable, Sendable, Hashable {
    public var sourceTopic: String
    public var sourcePartition: Int32
    public var sourceOffset: Int64
    /// The source record's key (UTF-8), nil if it had none.
    public var sourceKey: String?
    /// The source record's value bytes, untouched (base64 in JSON).
    public var sourceValue: RawBytes
    /// Why it failed, human readable; never contains secrets.
    public var reason: String
    /// Consumer group (service) that gave up on it.
    public var consumer: String
    public var failedAt: Date
    /// Set when the source value was too large to keep beside the letter (its
    /// size in bytes): ``sourceValue`` is then empty, and the record can only
    /// be replayed from its source topic while that still retains it.
    public var omittedSourceValueBytes: Int?

    enum CodingKeys: String, CodingKey {
        case sourceTopic, sourcePartition, sourceOffset, sourceKey, sourceValue, reason, consumer, failedAt, omittedSourceValueBytes
    }

    public init(
        sourceTopic: String, sourcePartition: Int32, sourceOffset: Int64, sourceKey: String?, sourceValue: [UInt8],
        reason: String, consumer: String, failedAt: Date
    ) {
        self.sourceTopic = sourceTopic
        self.sourcePartition = sourcePartition
        self.sourceOffset = sourceOffset
        self.sourceKey = sourceKey
        self.sourceValue = RawBytes(sourceValue)
        self.reason = String(reason.prefix(2000))
        self.consumer = consumer
        self.failedAt = failedAt
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        sourceTopic = try c.decode(String.self, forKey: .sourceTopic)
        sourcePartition = try c.decode(Int32.self, forKey: .sourcePartition)
        sourceOffset = try c.decode(Int64.self, forKey: .sourceOffset)
        sourceKey = try c.decodeIfPresent(String.self, forKey: .sourceKey)
        sourceValue = try c.decode(RawBytes.self, forKey: .sourceValue)
        reason = try c.decode(String.self, forKey: .reason)
        consumer = try c.decodeIfPresent(String.self, forKey: .consumer) ?? ""
        failedAt = try c.decodeRequiredTimestamp(forKey: .failedAt)
        omittedSourceValueBytes = try c.decodeIfPresent(Int.self, forKey: .omittedSourceValueBytes)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(sourceTopic, forKey: .sourceTopic)
        try c.encode(sourcePartition, forKey: .sourcePartition)
        try c.encode(sourceOffset, forKey: .sourceOffset)
        try c.encode(sourceKey, forKey: .sourceKey)
        try c.encode(sourceValue, forKey: .sourceValue)
        try c.encode(reason, forKey: .reason)
        try c.encode(consumer, forKey: .consumer)
        try c.encodeTimestamp(failedAt, forKey: .failedAt)
        try c.encodeIfPresent(omittedSourceValueBytes, forKey: .omittedSourceValueBytes)
    }
}
