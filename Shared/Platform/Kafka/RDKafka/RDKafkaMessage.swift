internal import CRdKafka

// MARK: - Producing

extension RDKafkaClient {
    /// Enqueues one message with `rd_kafka_produceva` (the array form of the
    /// variadic `rd_kafka_producev`, which Swift cannot call). librdkafka
    /// copies key, value and headers (`RD_KAFKA_MSG_F_COPY`), so the
    /// temporary C buffers are freed on return.
    /// - Parameter opaque: per-message value returned in the delivery report.
    /// - Returns: `nil` when enqueued, otherwise why not.
    func produce(_ message: KafkaProducerMessage, opaque: UInt64) -> ProduceFailure? {
        var buffers = CBufferArena()
        defer { buffers.freeAll() }

        var values: [rd_kafka_vu_t] = []
        values.reserveCapacity(6 + message.headers.count)
        var topic = rd_kafka_vu_t()
        topic.vtype = RD_KAFKA_VTYPE_TOPIC
        topic.u.cstr = UnsafePointer(buffers.cString(message.topic))
        values.append(topic)
        if let partition = message.partition {
            var item = rd_kafka_vu_t()
            item.vtype = RD_KAFKA_VTYPE_PARTITION
            item.u.i32 = partition
            values.append(item)
        }
        if let key = message.key {
            var item = rd_kafka_vu_t()
            item.vtype = RD_KAFKA_VTYPE_KEY
            item.u.mem.ptr = buffers.bytes(key)
            item.u.mem.size = key.count
            values.append(item)
        }
        if let value = message.value {
            var item = rd_kafka_vu_t()
            item.vtype = RD_KAFKA_VTYPE_VALUE
            item.u.mem.ptr = buffers.bytes(value)
            item.u.mem.size = value.count
            values.append(item)
        }
        for header in message.headers {
            var item = rd_kafka_vu_t()
            item.vtype = RD_KAFKA_VTYPE_HEADER
            item.u.header.name = UnsafePointer(buffers.cString(header.name))
            item.u.header.val = header.value.map { UnsafeRawPointer(buffers.bytes($0)) }
            item.u.header.size = header.value?.count ?? 0
            values.append(item)
        }
        var flags = rd_kafka_vu_t()
        flags.vtype = RD_KAFKA_VTYPE_MSGFLAGS
        flags.u.i = RD_KAFKA_MSG_F_COPY
        values.append(flags)
        var opaqueItem = rd_kafka_vu_t()
        opaqueItem.vtype = RD_KAFKA_VTYPE_OPAQUE
        opaqueItem.u.ptr = UnsafeMutableRawPointer(bitPattern: UInt(opaque))
        values.append(opaqueItem)

        guard let error = values.withUnsafeBufferPointer({ rd_kafka_produceva(handle, $0.baseAddress, $0.count) }) else {
            return nil
        }
        defer { rd_kafka_error_destroy(error) }
        let code = rd_kafka_error_code(error)
        let queueFull = code == RD_KAFKA_RESP_ERR__QUEUE_FULL
        return ProduceFailure(
            isQueueFull: queueFull,
            error: KafkaError(
                queueFull ? .queueFull : .enqueueFailed,
                reason: "cannot enqueue for \(message.topic): \(String(cString: rd_kafka_error_string(error)))",
                rdKafkaCode: code.rawValue))
    }
}

/// Why `rd_kafka_produceva` refused a message.
struct ProduceFailure {
    /// The local queue is full; retrying after deliveries may succeed.
    var isQueueFull: Bool
    var error: KafkaError
}

/// C copies of Swift strings and byte arrays that live until `freeAll()`.
struct CBufferArena {
    private var allocations: [UnsafeMutableRawPointer] = []

    mutating func cString(_ text: String) -> UnsafeMutablePointer<CChar> {
        let utf8 = Array(text.utf8) + [0]
        return bytes(utf8).assumingMemoryBound(to: CChar.self)
    }

    /// A copy of `bytes`; never NULL, so an empty array stays distinct from "absent".
    mutating func bytes(_ bytes: [UInt8]) -> UnsafeMutableRawPointer {
        let copy = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress { copy.copyMemory(from: base, byteCount: source.count) }
        }
        allocations.append(copy)
        return copy
    }

    mutating func freeAll() {
        for pointer in allocations {
            pointer.deallocate()
        }
        allocations.removeAll()
    }
}

// MARK: - Reading messages

extension UnsafePointer<rd_kafka_message_t> {
    var topicName: String {
        pointee.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? ""
    }

    var keyBytes: [UInt8]? {
        guard let key = pointee.key else { return nil }
        return Array(UnsafeRawBufferPointer(start: key, count: pointee.key_len))
    }

    var valueBytes: [UInt8]? {
        guard let payload = pointee.payload else { return nil }
        return Array(UnsafeRawBufferPointer(start: payload, count: pointee.len))
    }

    var headers: [KafkaHeader] {
        var list: OpaquePointer?
        guard rd_kafka_message_headers(self, &list) == RD_KAFKA_RESP_ERR_NO_ERROR, let list else { return [] }
        var result: [KafkaHeader] = []
        var index = 0
        var name: UnsafePointer<CChar>?
        var value: UnsafeRawPointer?
        var size = 0
        while rd_kafka_header_get_all(list, index, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR {
            let bytes = value.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) }
            result.append(KafkaHeader(name.map { String(cString: $0) } ?? "", bytes))
            index += 1
        }
        return result
    }

    var timestampMilliseconds: Int64? {
        var type = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
        let value = rd_kafka_message_timestamp(self, &type)
        return type == RD_KAFKA_TIMESTAMP_NOT_AVAILABLE || value < 0 ? nil : value
    }

    /// The message as a consumer record.
    var consumerRecord: KafkaConsumerRecord {
        KafkaConsumerRecord(
            topic: topicName, partition: pointee.partition, offset: pointee.offset,
            key: keyBytes, value: valueBytes, headers: headers, timestampMilliseconds: timestampMilliseconds)
    }

    /// The message as it was produced (for failed delivery reports).
    var producerMessage: KafkaProducerMessage {
        let partition = pointee.partition
        return KafkaProducerMessage(
            topic: topicName, partition: partition == RD_KAFKA_PARTITION_UA ? nil : partition,
            key: keyBytes, value: valueBytes, headers: headers)
    }
}
