import Timing
import Dispatch

/// Reads another consumer group's committed offsets and the topic's
/// watermarks, to report that group's lag (monitoring, demos, operators).
///
/// It holds a consumer handle configured with the group's id that never
/// subscribes or assigns partitions, so it never joins the group and cannot
/// trigger a rebalance; it only asks the group coordinator for committed
/// offsets (OffsetFetch) and the partition leaders for watermarks
/// (ListOffsets). It never commits.
///
/// Broker caveat: Tansu 0.6 (the local broker) answers ListOffsets(latest)
/// with the base offset of the partition's last record batch plus one, not
/// the log end offset, so when producers batch records the high watermark
/// (and the lag) it reports is too low. Committed offsets are exact.
public final class KafkaConsumerGroupLagReader: Sendable {
    /// The group whose lag is read.
    public let groupID: String
    private let client: RDKafkaClient
    /// librdkafka's offset queries block; they run here, off the cooperative pool.
    private let queue = DispatchQueue(label: "kafka-group-lag")

    /// Creates a reader for `groupID`.
    /// - Throws: ``KafkaError/Code/invalidArgument`` for an empty group id,
    ///   ``KafkaError/Code/libraryTooOld``, ``KafkaError/Code/invalidConfiguration``
    ///   or ``KafkaError/Code/clientCreationFailed``.
    public init(configuration: KafkaClientConfiguration, groupID: String) throws {
        guard !groupID.isEmpty else { throw KafkaError(.invalidArgument, reason: "groupID must not be empty") }
        try KafkaRuntime.checkLibraryVersion()
        var properties = configuration.properties
        properties["group.id"] = groupID
        // Belt and braces: nothing is ever assigned, so nothing could be committed anyway.
        properties["enable.auto.commit"] = "false"
        properties["enable.auto.offset.store"] = "false"
        properties["allow.auto.create.topics"] = "false"
        properties.merge(configuration.extraProperties) { _, override in override }
        self.groupID = groupID
        client = try RDKafkaClient(
            kind: .consumer, properties: properties,
            context: RDKafkaCallbackContext(logHandler: configuration.logHandler), callbacks: [])
    }

    /// The group's lag on every partition of `topic`.
    /// - Parameters:
    ///   - topic: the topic the group consumes.
    ///   - timeout: how long each broker request may take.
    /// - Throws: ``KafkaError/Code/unknownTopic`` or ``KafkaError/Code/adminRequestFailed``.
    public func lag(topic: String, timeout: Duration = .seconds(5)) async throws -> KafkaConsumerGroupLag {
        let milliseconds = Int32(clamping: timeout.wholeMilliseconds)
        let client = client, groupID = groupID
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(
                    with: Result {
                        let partitions = try client.partitionCountBlocking(topic: topic, timeoutMilliseconds: milliseconds)
                        let figures = try client.groupOffsetsBlocking(
                            topic: topic, partitions: Int32(clamping: partitions), timeoutMilliseconds: milliseconds)
                        return KafkaConsumerGroupLag(groupID: groupID, topic: topic, partitions: figures)
                    })
            }
        }
    }
}
