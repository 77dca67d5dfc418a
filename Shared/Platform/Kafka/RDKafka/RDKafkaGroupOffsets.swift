internal import CRdKafka

extension RDKafkaClient {
    /// Watermarks of each partition and the committed offsets of this
    /// handle's `group.id`. Blocking; callers run it off the cooperative pool.
    /// - Throws: ``KafkaError/Code/adminRequestFailed``.
    func groupOffsetsBlocking(topic: String, partitions: Int32, timeoutMilliseconds: Int32) throws -> [KafkaConsumerGroupLag.Partition] {
        guard partitions > 0 else { return [] }
        guard let list = rd_kafka_topic_partition_list_new(partitions) else {
            throw KafkaError(.adminRequestFailed, reason: "rd_kafka_topic_partition_list_new returned NULL")
        }
        defer { rd_kafka_topic_partition_list_destroy(list) }
        for partition in 0..<partitions {
            rd_kafka_topic_partition_list_add(list, topic, partition)
        }
        // Asks the group coordinator; does not join the group.
        let error = rd_kafka_committed(handle, list, timeoutMilliseconds)
        guard error == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError(.adminRequestFailed, rdKafka: error, context: "committed offsets of \(topic)")
        }
        var committed: [Int32: Int64] = [:]
        for index in 0..<Int(list.pointee.cnt) {
            let element = list.pointee.elems[index]
            guard element.err == RD_KAFKA_RESP_ERR_NO_ERROR else {
                throw KafkaError(.adminRequestFailed, rdKafka: element.err, context: "committed offset of \(topic)[\(element.partition)]")
            }
            // RD_KAFKA_OFFSET_INVALID (and any other negative logical offset): nothing committed.
            if element.offset >= 0 { committed[element.partition] = element.offset }
        }

        var result: [KafkaConsumerGroupLag.Partition] = []
        for partition in 0..<partitions {
            var low: Int64 = 0, high: Int64 = 0
            let error = rd_kafka_query_watermark_offsets(handle, topic, partition, &low, &high, timeoutMilliseconds)
            guard error == RD_KAFKA_RESP_ERR_NO_ERROR else {
                throw KafkaError(.adminRequestFailed, rdKafka: error, context: "watermarks of \(topic)[\(partition)]")
            }
            result.append(
                KafkaConsumerGroupLag.Partition(
                    partition: partition, lowWatermark: low, highWatermark: high, committedOffset: committed[partition]))
        }
        return result
    }
}
