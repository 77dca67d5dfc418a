internal import CRdKafka

/// The object librdkafka's callbacks reach through the handle's opaque
/// pointer. Subclasses override the hooks their client kind needs.
///
/// `@unchecked Sendable`: this base class holds only immutable state (the log
/// handler, itself `Sendable`). Subclasses document their own thread rules.
class RDKafkaCallbackContext: @unchecked Sendable {
    let logHandler: KafkaLogHandler?

    init(logHandler: KafkaLogHandler?) {
        self.logHandler = logHandler
    }

    /// A delivery report (producer; runs on the thread that calls `rd_kafka_poll`).
    func deliveryReport(_ message: UnsafePointer<rd_kafka_message_t>) {}

    /// A group rebalance (consumer; runs on the thread that polls the consumer).
    func rebalance(_ handle: OpaquePointer, _ error: rd_kafka_resp_err_t, _ partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?) {}

    /// A client-level error such as "all brokers down" (runs on the polling thread).
    func clientError(_ code: Int32, _ reason: String) {
        let fatal = code == RD_KAFKA_RESP_ERR__FATAL.rawValue
        logHandler?(fatal ? .critical : .warning, "client error \(code): \(reason)")
    }

    /// Recovers the context from an opaque pointer made by ``RDKafkaClient``.
    static func from(_ opaque: UnsafeMutableRawPointer?) -> RDKafkaCallbackContext? {
        guard let opaque else { return nil }
        return Unmanaged<RDKafkaCallbackContext>.fromOpaque(opaque).takeUnretainedValue()
    }
}

// MARK: - C callbacks
// Capture-free closures, so they convert to C function pointers; each finds
// its context through the opaque pointer. They live here, not in main.swift,
// so they are not inferred @MainActor (see STYLE.md).

let rdKafkaLogCallback: @convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Void = {
    handle, level, facility, text in
    guard let handle, let context = RDKafkaCallbackContext.from(rd_kafka_opaque(handle)),
        let logHandler = context.logHandler
    else { return }
    let facilityText = facility.map { String(cString: $0) } ?? "-"
    let body = text.map { String(cString: $0) } ?? ""
    logHandler(KafkaLogLevel(syslogLevel: level), "[\(facilityText)] \(body)")
}

let rdKafkaErrorCallback: @convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void = {
    _, code, reason, opaque in
    RDKafkaCallbackContext.from(opaque)?.clientError(code, reason.map { String(cString: $0) } ?? "")
}

let rdKafkaDeliveryCallback: @convention(c) (OpaquePointer?, UnsafePointer<rd_kafka_message_t>?, UnsafeMutableRawPointer?) -> Void = {
    _, message, opaque in
    guard let message else { return }
    RDKafkaCallbackContext.from(opaque)?.deliveryReport(message)
}

let rdKafkaRebalanceCallback:
    @convention(c) (OpaquePointer?, rd_kafka_resp_err_t, UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?, UnsafeMutableRawPointer?) -> Void = {
        handle, error, partitions, opaque in
        guard let handle, let context = RDKafkaCallbackContext.from(opaque) else { return }
        context.rebalance(handle, error, partitions)
    }
