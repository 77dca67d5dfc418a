internal import CRdKafka

/// Owns one `rd_kafka_t` and the callback context its opaque pointer names;
/// frees both in `deinit`, handle first so no callback can outlive its context.
///
/// `@unchecked Sendable`: librdkafka documents `rd_kafka_t` as thread-safe
/// (any thread may produce, commit, query metadata); the stored properties
/// are immutable.
final class RDKafkaClient: @unchecked Sendable {
    /// Which optional callbacks to install besides logging.
    struct Callbacks: OptionSet {
        let rawValue: Int
        static let deliveryReports = Callbacks(rawValue: 1)
        static let rebalance = Callbacks(rawValue: 2)
        static let errors = Callbacks(rawValue: 4)
    }

    enum Kind {
        case producer, consumer
        var raw: rd_kafka_type_t { self == .producer ? RD_KAFKA_PRODUCER : RD_KAFKA_CONSUMER }
    }

    let handle: OpaquePointer
    private let kind: Kind
    private let context: Unmanaged<RDKafkaCallbackContext>

    /// Creates a handle from librdkafka properties.
    /// - Throws: ``KafkaError/Code/invalidConfiguration`` or ``KafkaError/Code/clientCreationFailed``.
    init(kind: Kind, properties: [String: String], context: RDKafkaCallbackContext, callbacks: Callbacks) throws {
        guard let conf = rd_kafka_conf_new() else {
            throw KafkaError(.clientCreationFailed, reason: "rd_kafka_conf_new returned NULL")
        }
        var errorText = [CChar](repeating: 0, count: 512)
        for (key, value) in properties.sorted(by: { $0.key < $1.key }) {
            let result = rd_kafka_conf_set(conf, key, value, &errorText, errorText.count)
            guard result == RD_KAFKA_CONF_OK else {
                rd_kafka_conf_destroy(conf)
                // librdkafka's text may quote the value; never echo values of secret-looking keys.
                let secret = ["password", "secret", "key", "token"].contains { key.lowercased().contains($0) }
                let detail = secret ? "invalid value" : cText(errorText)
                throw KafkaError(.invalidConfiguration, reason: "property \(key): \(detail)")
            }
        }
        rd_kafka_conf_set_log_cb(conf, rdKafkaLogCallback)
        if callbacks.contains(.deliveryReports) { rd_kafka_conf_set_dr_msg_cb(conf, rdKafkaDeliveryCallback) }
        if callbacks.contains(.rebalance) { rd_kafka_conf_set_rebalance_cb(conf, rdKafkaRebalanceCallback) }
        if callbacks.contains(.errors) { rd_kafka_conf_set_error_cb(conf, rdKafkaErrorCallback) }

        let retained = Unmanaged.passRetained(context)
        rd_kafka_conf_set_opaque(conf, retained.toOpaque())
        // On success rd_kafka_new owns conf; on failure it is still ours.
        guard let handle = rd_kafka_new(kind.raw, conf, &errorText, errorText.count) else {
            rd_kafka_conf_destroy(conf)
            retained.release()
            throw KafkaError(.clientCreationFailed, reason: cText(errorText))
        }
        self.handle = handle
        self.kind = kind
        self.context = retained
    }

    deinit {
        // A consumer leaves its group on its own thread (RDKafkaConsumerLoop
        // closes it when it stops). Here, the implicit close of
        // `rd_kafka_destroy` would wait without a bound for a group round
        // trip, on whatever thread released the handle last (a Swift
        // concurrency thread, in a fresh-clone run that hung): an unclosed
        // consumer is left to the group's session timeout instead.
        switch kind {
        case .consumer: rd_kafka_destroy_flags(handle, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE)
        case .producer: rd_kafka_destroy(handle)
        }
        context.release()
    }
}

/// librdkafka's text for an error code.
func rdKafkaErrorText(_ code: rd_kafka_resp_err_t) -> String {
    String(cString: rd_kafka_err2str(code))
}

extension KafkaError {
    /// An error carrying librdkafka's code and text.
    init(_ code: Code, rdKafka error: rd_kafka_resp_err_t, context: String, file: String = #fileID, line: UInt = #line) {
        self.init(code, reason: "\(context): \(rdKafkaErrorText(error))", rdKafkaCode: error.rawValue, file: file, line: line)
    }
}

/// The NUL-terminated text in a C error buffer.
func cText(_ buffer: [CChar]) -> String {
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
}

extension RDKafkaClient {
    /// Subscribes a consumer handle to `topics` and routes the main queue
    /// (errors, rebalances) to the consumer queue, so one poll serves all.
    func subscribe(_ topics: [String]) throws {
        rd_kafka_poll_set_consumer(handle)
        let list = rd_kafka_topic_partition_list_new(Int32(topics.count))
        defer { rd_kafka_topic_partition_list_destroy(list) }
        for topic in topics {
            rd_kafka_topic_partition_list_add(list, topic, RD_KAFKA_PARTITION_UA)
        }
        let error = rd_kafka_subscribe(handle, list)
        guard error == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError(.subscriptionFailed, rdKafka: error, context: "subscribe to \(topics.joined(separator: ","))")
        }
    }
}
