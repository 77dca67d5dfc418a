internal import CRdKafka
import Synchronization

/// A consumer's assignment, buffered records and commit bookkeeping.
///
/// `@unchecked Sendable`: apart from `publishedAssignment` (a `Mutex`), every
/// property is touched only on the consumer's own thread — by its loop, and
/// by the rebalance callback, which librdkafka runs inside
/// `rd_kafka_consumer_poll`/`rd_kafka_consumer_close` on that same thread.
final class RDKafkaConsumerState: RDKafkaCallbackContext, @unchecked Sendable {
    /// Owned partitions and the assignment epoch each was assigned in. Every
    /// assignment gets a new epoch, so a batch read before a revocation never
    /// matches, even if the partition came back later.
    var owned: [KafkaTopicPartition: UInt64] = [:]
    private var nextEpoch: UInt64 = 1
    /// Records polled but not yet handed out.
    var buffer: [KafkaConsumerRecord] = []
    /// The highest offset this member committed per owned partition.
    var committed: [KafkaTopicPartition: Int64] = [:]
    /// A copy of the assignment for other threads.
    let publishedAssignment = Mutex<Set<KafkaTopicPartition>>([])
    /// Offset continuity per owned partition; `nil` when gaps are not rechecked.
    var gaps: OffsetGapTracker?
    /// When librdkafka reported every broker down or a subscribed topic
    /// unknown, until the loop has rejoined the group.
    var rejoinWantedSince: ContinuousClock.Instant?

    init(logHandler: KafkaLogHandler?, offsetGapRecheck: Duration?) {
        gaps = offsetGapRecheck.map { OffsetGapTracker(window: $0) }
        super.init(logHandler: logHandler)
    }

    // MARK: - Client errors (consumer thread: the main queue is forwarded to the consumer's)

    override func clientError(_ code: Int32, _ reason: String) {
        super.clientError(code, reason)
        if code == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN.rawValue, rejoinWantedSince == nil { rejoinWantedSince = .now }
    }

    // MARK: - Rebalance (consumer thread)

    override func rebalance(
        _ handle: OpaquePointer, _ error: rd_kafka_resp_err_t,
        _ partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
    ) {
        let changed = Self.topicPartitions(partitions)
        let cooperative = rd_kafka_rebalance_protocol(handle).map { String(cString: $0) } == "COOPERATIVE"
        switch error {
        case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
            for partition in changed {
                owned[partition] = nextEpoch
                nextEpoch += 1
            }
            gaps?.forget(changed)
            logHandler?(.info, "assigned \(changed.map(\.description).sorted().joined(separator: ", "))")
            if cooperative {
                report(rd_kafka_incremental_assign(handle, partitions), doing: "incremental assign")
            } else {
                report(rd_kafka_assign(handle, partitions), doing: "assign")
            }
        case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
            revoke(changed, lost: rd_kafka_assignment_lost(handle) != 0)
            if cooperative {
                report(rd_kafka_incremental_unassign(handle, partitions), doing: "incremental unassign")
            } else {
                report(rd_kafka_assign(handle, nil), doing: "unassign")
            }
        default:
            // librdkafka asks us to drop the assignment on rebalance errors.
            logHandler?(.warning, "rebalance error: \(rdKafkaErrorText(error))")
            revoke(Array(owned.keys), lost: true)
            report(rd_kafka_assign(handle, nil), doing: "unassign")
        }
        let snapshot = Set(owned.keys)
        publishedAssignment.withLock { $0 = snapshot }
    }

    /// Forgets revoked partitions: records not yet handed out are dropped
    /// (the next owner reads them from the committed offset), and batches
    /// already handed out can no longer commit them (epoch mismatch).
    private func revoke(_ partitions: [KafkaTopicPartition], lost: Bool) {
        let revoked = Set(partitions)
        for partition in revoked {
            owned.removeValue(forKey: partition)
            committed.removeValue(forKey: partition)
        }
        gaps?.forget(revoked)
        buffer.removeAll { revoked.contains($0.topicPartition) }
        logHandler?(.info, "\(lost ? "lost" : "revoked") \(partitions.map(\.description).sorted().joined(separator: ", "))")
    }

    private func report(_ error: rd_kafka_resp_err_t, doing action: String) {
        if error != RD_KAFKA_RESP_ERR_NO_ERROR {
            logHandler?(.error, "\(action) failed: \(rdKafkaErrorText(error))")
        }
    }

    private func report(_ error: OpaquePointer?, doing action: String) {
        guard let error else { return }
        logHandler?(.error, "\(action) failed: \(String(cString: rd_kafka_error_string(error)))")
        rd_kafka_error_destroy(error)
    }

    static func topicPartitions(_ list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?) -> [KafkaTopicPartition] {
        guard let list, let elements = list.pointee.elems else { return [] }
        return (0..<Int(list.pointee.cnt)).map {
            KafkaTopicPartition(topic: String(cString: elements[$0].topic), partition: elements[$0].partition)
        }
    }
}
