internal import CRdKafka

/// Blocking admin requests on an `rd_kafka_t`. Callers run these on a
/// dedicated queue, never on Swift's cooperative pool.
extension RDKafkaClient {
    /// Creates topics; a topic that already exists counts as created.
    /// - Throws: ``KafkaError/Code/adminRequestFailed`` naming every topic that failed.
    func createTopicsBlocking(_ topics: [KafkaTopicSpecification], timeoutMilliseconds: Int32) throws {
        guard !topics.isEmpty else { return }
        var errorText = [CChar](repeating: 0, count: 512)
        var newTopics: [OpaquePointer?] = []
        defer { for topic in newTopics { rd_kafka_NewTopic_destroy(topic) } }
        for topic in topics {
            guard
                let newTopic = rd_kafka_NewTopic_new(
                    topic.name, topic.partitions, Int32(topic.replicationFactor), &errorText, errorText.count)
            else {
                throw KafkaError(.invalidArgument, reason: "topic \(topic.name): \(cText(errorText))")
            }
            newTopics.append(newTopic)
            for (key, value) in topic.config.sorted(by: { $0.key < $1.key }) {
                let error = rd_kafka_NewTopic_set_config(newTopic, key, value)
                guard error == RD_KAFKA_RESP_ERR_NO_ERROR else {
                    throw KafkaError(.invalidArgument, rdKafka: error, context: "topic \(topic.name) config \(key)")
                }
            }
        }

        let options = rd_kafka_AdminOptions_new(handle, RD_KAFKA_ADMIN_OP_CREATETOPICS)
        defer { rd_kafka_AdminOptions_destroy(options) }
        _ = rd_kafka_AdminOptions_set_request_timeout(options, timeoutMilliseconds, &errorText, errorText.count)
        _ = rd_kafka_AdminOptions_set_operation_timeout(options, timeoutMilliseconds, &errorText, errorText.count)
        let queue = rd_kafka_queue_new(handle)
        defer { rd_kafka_queue_destroy(queue) }

        newTopics.withUnsafeMutableBufferPointer { rd_kafka_CreateTopics(handle, $0.baseAddress, $0.count, options, queue) }
        guard let event = rd_kafka_queue_poll(queue, timeoutMilliseconds + 1000) else {
            throw KafkaError(.adminRequestFailed, reason: "create topics: no answer within \(timeoutMilliseconds) ms")
        }
        defer { rd_kafka_event_destroy(event) }
        let eventError = rd_kafka_event_error(event)
        guard eventError == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError(
                .adminRequestFailed, reason: "create topics: \(String(cString: rd_kafka_event_error_string(event)))",
                rdKafkaCode: eventError.rawValue)
        }
        guard let result = rd_kafka_event_CreateTopics_result(event) else {
            throw KafkaError(.adminRequestFailed, reason: "create topics: unexpected event \(rd_kafka_event_type(event))")
        }
        var count = 0
        guard let results = rd_kafka_CreateTopics_result_topics(result, &count) else { return }
        var failures: [String] = []
        var firstCode: rd_kafka_resp_err_t?
        for index in 0..<count {
            let topicResult = results[index]
            let error = rd_kafka_topic_result_error(topicResult)
            guard error != RD_KAFKA_RESP_ERR_NO_ERROR, error != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS else { continue }
            let name = String(cString: rd_kafka_topic_result_name(topicResult))
            let text = rd_kafka_topic_result_error_string(topicResult).map { String(cString: $0) } ?? rdKafkaErrorText(error)
            failures.append("\(name): \(text)")
            firstCode = firstCode ?? error
        }
        if !failures.isEmpty {
            throw KafkaError(
                .adminRequestFailed, reason: "create topics failed: " + failures.joined(separator: "; "),
                rdKafkaCode: firstCode?.rawValue)
        }
    }

    /// The number of partitions of `topic`, from a metadata request.
    /// - Throws: ``KafkaError/Code/unknownTopic`` or ``KafkaError/Code/adminRequestFailed``.
    func partitionCountBlocking(topic: String, timeoutMilliseconds: Int32) throws -> Int {
        guard let topicHandle = rd_kafka_topic_new(handle, topic, nil) else {
            throw KafkaError(.invalidArgument, reason: "invalid topic name \(topic)")
        }
        defer { rd_kafka_topic_destroy(topicHandle) }
        var metadata: UnsafePointer<rd_kafka_metadata>?
        let error = rd_kafka_metadata(handle, 0, topicHandle, &metadata, timeoutMilliseconds)
        guard error == RD_KAFKA_RESP_ERR_NO_ERROR, let metadata else {
            throw KafkaError(.adminRequestFailed, rdKafka: error, context: "metadata for \(topic)")
        }
        defer { rd_kafka_metadata_destroy(metadata) }
        guard metadata.pointee.topic_cnt > 0, let topics = metadata.pointee.topics else {
            throw KafkaError(.unknownTopic, reason: "no metadata for topic \(topic)")
        }
        let topicError = topics[0].err
        guard topicError == RD_KAFKA_RESP_ERR_NO_ERROR else {
            let code: KafkaError.Code = topicError == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ? .unknownTopic : .adminRequestFailed
            throw KafkaError(code, rdKafka: topicError, context: "metadata for \(topic)")
        }
        return Int(topics[0].partition_cnt)
    }
}
