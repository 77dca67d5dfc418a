#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Settings every Kafka client (producer, consumer, admin) shares.
public struct KafkaClientConfiguration: Sendable {
    /// Brokers to bootstrap from, as `host:port` (`bootstrap.servers`). No default.
    public var bootstrapServers: [String]
    /// Name this client reports to the broker (`client.id`). Default `"storefront"`.
    public var clientID: String
    /// Receives librdkafka's log lines on librdkafka's threads; `nil` drops them all.
    /// Default ``standardErrorLogHandler``: warnings and worse, one line each on stderr.
    public var logHandler: KafkaLogHandler?
    /// Largest record this client produces or accepts (`message.max.bytes`).
    /// Default 4 MiB: a 1 MiB webhook body grows to about 1.4 MiB as a
    /// base64 envelope, and to about 1.9 MiB when that envelope is dead-lettered.
    public var maxMessageBytes: Int
    /// Most record bytes a consumer fetches ahead of what it was asked for
    /// (`queued.max.messages.kbytes`; consumers only). Default 8 MiB, against
    /// librdkafka's 64 MiB: a consumer behind a backlog otherwise holds 64 MiB
    /// of records it has not been asked for, and its heap keeps the room
    /// after it caught up. 8 MiB is several projector batches of natural-size
    /// webhooks; one record larger than the bound is still fetched whole.
    public var consumerPrefetchBytes: Int
    /// TLS and SASL (`security.protocol`, `sasl.*`, `ssl.*`). Default ``KafkaSecurity/plaintext``.
    public var security: KafkaSecurity
    /// Raw librdkafka properties applied last, so they override everything this
    /// module sets. The escape hatch for settings without a typed property. Default empty.
    public var extraProperties: [String: String]

    /// The default of ``maxMessageBytes``.
    public static let defaultMaxMessageBytes = 4 << 20
    /// The default of ``consumerPrefetchBytes``.
    public static let defaultConsumerPrefetchBytes = 8 << 20

    /// Creates a client configuration.
    /// - Parameters:
    ///   - bootstrapServers: `host:port` of one or more brokers.
    ///   - clientID: the `client.id` reported to the broker.
    ///   - logHandler: where librdkafka's log lines go; `nil` drops them.
    ///   - security: TLS and SASL settings.
    ///   - extraProperties: raw librdkafka properties that override the rest.
    public init(
        bootstrapServers: [String],
        clientID: String = "storefront",
        logHandler: KafkaLogHandler? = KafkaClientConfiguration.standardErrorLogHandler,
        maxMessageBytes: Int = KafkaClientConfiguration.defaultMaxMessageBytes,
        consumerPrefetchBytes: Int = KafkaClientConfiguration.defaultConsumerPrefetchBytes,
        security: KafkaSecurity = .plaintext,
        extraProperties: [String: String] = [:]
    ) {
        self.bootstrapServers = bootstrapServers
        self.clientID = clientID
        self.logHandler = logHandler
        self.maxMessageBytes = maxMessageBytes
        self.consumerPrefetchBytes = consumerPrefetchBytes
        self.security = security
        self.extraProperties = extraProperties
    }

    /// Writes warnings and more severe lines to stderr, one line each; drops
    /// notice, info and debug.
    public static let standardErrorLogHandler: KafkaLogHandler = { level, message in
        guard level >= .warning else { return }
        let line = "kafka \(level): " + message.split(whereSeparator: \.isNewline).joined(separator: " ") + "\n"
        // One write(2) per line keeps lines from different threads whole.
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// The librdkafka properties shared by every client kind, security included.
    var properties: [String: String] {
        [
            "bootstrap.servers": bootstrapServers.joined(separator: ","),
            "client.id": clientID,
            "message.max.bytes": String(maxMessageBytes),
            // librdkafka wants room for a whole record plus protocol overhead in one response.
            "receive.message.max.bytes": String(max(maxMessageBytes * 2 + 512, 100_000_000)),
            // A produce or fetch request is one small write that someone waits
            // for: Nagle's algorithm would hold it behind an unacknowledged one.
            "socket.nagle.disable": "true",
        ].merging(security.properties) { _, security in security }
    }
}
