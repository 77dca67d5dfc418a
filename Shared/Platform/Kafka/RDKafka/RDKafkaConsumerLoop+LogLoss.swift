internal import CRdKafka

extension RDKafkaConsumerLoop {
    /// How often the owned partitions are checked for a read position past
    /// the end of their log (see ``restartLogsThatLostRecords()``).
    static let logLengthCheckInterval: Duration = .seconds(5)

    /// Moves each owned partition whose read position lies past the end of
    /// its log back to the log's first offset.
    ///
    /// Only a broker that lost records puts a log's end below a position
    /// read from it: the memory broker restarted empty, or a cluster that
    /// lost data. Kafka answers a fetch there with "offset out of range" and
    /// librdkafka then resets by `auto.offset.reset`; Tansu answers with no
    /// records and no error (measured), so without this the member waits,
    /// silently, until the new log grows past its old position: minutes of
    /// nothing projected in `make chaos`'s broker kill when the rejoin of
    /// ``rejoinAfterBrokerLoss()`` was not triggered, or started from an
    /// offset committed into the new broker from the old log. Records
    /// already applied are read again and absorbed by the consumers'
    /// idempotence; none is skipped.
    ///
    /// The cached watermarks (from fetch answers) pick the suspects at no
    /// cost; a suspect is confirmed with the broker before anything moves,
    /// since a cached end can be older than a position taken over from
    /// another member.
    func restartLogsThatLostRecords() {
        let now = clock.now
        guard now >= nextLogLengthCheck, !state.owned.isEmpty else { return }
        nextLogLengthCheck = now.advanced(by: Self.logLengthCheckInterval)
        for (partition, position) in readPositions() {
            guard let end = cachedLogEnd(partition), position > end else { continue }
            var low: Int64 = 0, high: Int64 = 0
            let asked = rd_kafka_query_watermark_offsets(client.handle, partition.topic, partition.partition, &low, &high, 1000)
            guard asked == RD_KAFKA_RESP_ERR_NO_ERROR, position > high else { continue }
            state.logHandler?(
                .warning,
                "\(partition): read position \(position) is past the log's end \(high) (the broker lost records); reading again from \(low)")
            state.committed[partition] = nil
            state.gaps?.forget([partition])
            state.buffer.removeAll { $0.topicPartition == partition }
            // The committed offset that put it there is stale now: do not act on it again.
            if let epoch = state.owned[partition] { committedAtAssignment[partition] = (epoch, -1) }
            rewind(partition, to: low)
        }
    }

    /// Where each owned partition reads next: the position after the last
    /// record consumed, or, before the first one, the group's committed
    /// offset when it was assigned (asked once per assignment, in one request).
    private func readPositions() -> [(KafkaTopicPartition, Int64)] {
        let owned = state.owned
        committedAtAssignment = committedAtAssignment.filter { owned[$0.key] == $0.value.epoch }
        // Offsets below 0 are librdkafka's "none yet" markers.
        var positions = offsets(of: Array(owned.keys)) { rd_kafka_position(client.handle, $0) }.filter { $0.value >= 0 }
        let unasked = owned.keys.filter { positions[$0] == nil && committedAtAssignment[$0] == nil }
        for (partition, offset) in offsets(of: unasked, { rd_kafka_committed(client.handle, $0, 1000) }) {
            if let epoch = owned[partition] { committedAtAssignment[partition] = (epoch, offset) }
        }
        for (partition, committed) in committedAtAssignment where positions[partition] == nil && committed.offset >= 0 {
            positions[partition] = committed.offset
        }
        return positions.sorted { $0.key.description < $1.key.description }.map { ($0.key, $0.value) }
    }

    /// The offsets `fill` writes into a list of `partitions`, for those it answered without an error.
    private func offsets(
        of partitions: [KafkaTopicPartition], _ fill: (UnsafeMutablePointer<rd_kafka_topic_partition_list_t>) -> rd_kafka_resp_err_t
    ) -> [KafkaTopicPartition: Int64] {
        guard !partitions.isEmpty, let list = rd_kafka_topic_partition_list_new(Int32(partitions.count)) else { return [:] }
        defer { rd_kafka_topic_partition_list_destroy(list) }
        for partition in partitions { rd_kafka_topic_partition_list_add(list, partition.topic, partition.partition) }
        guard fill(list) == RD_KAFKA_RESP_ERR_NO_ERROR, let elements = list.pointee.elems else { return [:] }
        var result: [KafkaTopicPartition: Int64] = [:]
        for index in 0..<Int(list.pointee.cnt) where elements[index].err == RD_KAFKA_RESP_ERR_NO_ERROR {
            result[KafkaTopicPartition(topic: String(cString: elements[index].topic), partition: elements[index].partition)] = elements[index].offset
        }
        return result
    }

    /// The log end librdkafka last heard of for `partition`, if any.
    private func cachedLogEnd(_ partition: KafkaTopicPartition) -> Int64? {
        var low: Int64 = -1, high: Int64 = -1
        let error = rd_kafka_get_watermark_offsets(client.handle, partition.topic, partition.partition, &low, &high)
        return error == RD_KAFKA_RESP_ERR_NO_ERROR && high >= 0 ? high : nil
    }
}
