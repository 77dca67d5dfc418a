/// An error from the Kafka module: a stable ``Code`` to switch on, a reason
/// for people, librdkafka's own error code when there is one, and where in
/// this module the error was made.
public struct KafkaError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. Extensible: new codes can be added
    /// without breaking `switch` statements, which must use `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The librdkafka loaded at run time is too old (< 2.2) to talk to the broker.
        public static let libraryTooOld = Code("libraryTooOld")
        /// librdkafka rejected a configuration property.
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// librdkafka could not create a client handle.
        public static let clientCreationFailed = Code("clientCreationFailed")
        /// The producer's local queue stayed full; the message was not enqueued.
        public static let queueFull = Code("queueFull")
        /// librdkafka refused to enqueue a message (unknown topic, too large, ...).
        public static let enqueueFailed = Code("enqueueFailed")
        /// The message was not delivered within `message.timeout.ms`
        /// (for example because the broker is down).
        public static let messageTimedOut = Code("messageTimedOut")
        /// The broker, or librdkafka on its behalf, failed the delivery.
        public static let deliveryFailed = Code("deliveryFailed")
        /// The client was shut down or closed before the operation could run.
        public static let shutDown = Code("shutDown")
        /// An offset commit failed.
        public static let commitFailed = Code("commitFailed")
        /// A batch was committed on a consumer that did not hand it out.
        public static let foreignBatch = Code("foreignBatch")
        /// Subscribing to topics failed.
        public static let subscriptionFailed = Code("subscriptionFailed")
        /// An admin request (create topics, metadata) failed.
        public static let adminRequestFailed = Code("adminRequestFailed")
        /// The named topic does not exist on the broker.
        public static let unknownTopic = Code("unknownTopic")
        /// The producer cannot publish now: records wait without deliveries,
        /// or a delivery failed and none succeeded since (a readiness answer).
        public static let notPublishing = Code("notPublishing")
        /// An argument was out of its documented range.
        public static let invalidArgument = Code("invalidArgument")
    }

    /// What kind of failure this is.
    public var code: Code
    /// A human-readable reason, usually librdkafka's own text.
    public var reason: String
    /// librdkafka's `rd_kafka_resp_err_t` value, when librdkafka reported the error.
    public var rdKafkaCode: Int32?
    /// The source file in this module where the error was made.
    public var file: String
    /// The source line in this module where the error was made.
    public var line: UInt

    /// Creates an error; `file` and `line` default to the call site.
    public init(
        _ code: Code, reason: String, rdKafkaCode: Int32? = nil,
        file: String = #fileID, line: UInt = #line
    ) {
        self.code = code
        self.reason = reason
        self.rdKafkaCode = rdKafkaCode
        self.file = file
        self.line = line
    }

    public var description: String {
        var text = "KafkaError.\(code): \(reason)"
        if let rdKafkaCode { text += " (rd_kafka_resp_err_t \(rdKafkaCode))" }
        return text + " [\(file):\(line)]"
    }
}
