import Timing
import Dispatch

/// Topic administration: idempotent topic creation for start-up, and
/// partition counts from metadata.
public final class KafkaAdmin: Sendable {
    private let client: RDKafkaClient
    /// librdkafka's admin calls block; they run here, off the cooperative pool.
    private let queue = DispatchQueue(label: "kafka-admin")

    /// Creates an admin client.
    /// - Throws: ``KafkaError/Code/libraryTooOld``, ``KafkaError/Code/invalidConfiguration``
    ///   or ``KafkaError/Code/clientCreationFailed``.
    public init(configuration: KafkaClientConfiguration) throws {
        try KafkaRuntime.checkLibraryVersion()
        var properties = configuration.properties
        // Asking for metadata of a missing topic must not create it.
        properties["allow.auto.create.topics"] = "false"
        properties.merge(configuration.extraProperties) { _, override in override }
        client = try RDKafkaClient(
            kind: .producer, properties: properties,
            context: RDKafkaCallbackContext(logHandler: configuration.logHandler), callbacks: [])
    }

    /// Creates topics that do not exist yet; existing topics are left as they
    /// are (their partitions and config are not changed), so this is safe to
    /// call at every start-up.
    /// - Parameters:
    ///   - topics: the topics to create.
    ///   - timeout: how long the broker may take.
    /// - Throws: ``KafkaError/Code/adminRequestFailed`` naming the topics that failed.
    public func createTopics(_ topics: [KafkaTopicSpecification], timeout: Duration = .seconds(10)) async throws {
        let milliseconds = Int32(clamping: timeout.wholeMilliseconds)
        try await run { client in try client.createTopicsBlocking(topics, timeoutMilliseconds: milliseconds) }
    }

    /// The number of partitions of `topic`.
    /// - Throws: ``KafkaError/Code/unknownTopic`` when it does not exist, or
    ///   ``KafkaError/Code/adminRequestFailed``.
    public func partitionCount(topic: String, timeout: Duration = .seconds(10)) async throws -> Int {
        let milliseconds = Int32(clamping: timeout.wholeMilliseconds)
        return try await run { client in try client.partitionCountBlocking(topic: topic, timeoutMilliseconds: milliseconds) }
    }

    private func run<T: Sendable>(_ work: @escaping @Sendable (RDKafkaClient) throws -> T) async throws -> T {
        let client = client
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work(client) }) }
        }
    }
}
