/// Decides, per partition, whether a polled record continues the offsets
/// already handed out, and when a gap is worth reading again.
///
/// Why: Tansu 0.6 with memory storage (the local test broker) raises a
/// partition's high watermark before it stores the batch, so a consumer
/// fetching at that moment is given the batches after it and silently moves
/// past it (`KafkaConcurrentProducersTests` reproduces it: four producers on
/// one partition, a tailing consumer, 10 of 40,000 acknowledged records
/// skipped). On the topics this consumer is made for (no compaction, no
/// transactions), offsets within a partition are contiguous, so a gap means
/// "not visible yet": the partition is rewound to the first missing offset
/// and read again until the gap fills, or until ``window`` passes, after
/// which the gap is accepted and reported (records deleted by retention, a
/// compacted topic).
///
/// Pure: no clock of its own and no librdkafka calls; the consumer loop
/// acts on its verdicts. Not thread-safe; the loop owns it.
struct OffsetGapTracker {
    enum Verdict: Equatable {
        /// Hand the record out.
        case accept
        /// Skip it: already handed out, or past a gap being re-read.
        case drop
        /// Skip it and rewind the partition to this offset.
        case rewind(to: Int64)
        /// Hand it out although `missing` never arrived within the window.
        case acceptGap(missing: Range<Int64>)
        /// Hand it out: offsets went back although no rewind of ours explains
        /// it (a recreated topic, a log truncated by the broker).
        case acceptRestart(from: Int64)
    }

    private struct Recheck {
        var missingFrom: Int64
        var firstSeen: ContinuousClock.Instant
    }

    /// How long a gap is re-read before it is accepted.
    let window: Duration
    /// How often a gap that has not filled is rewound again.
    let rewindInterval: Duration
    /// How long after our last rewind records below the next offset are
    /// taken as re-reads of records already handed out.
    let rereadGrace: Duration

    /// The offset each partition should continue with; absent: not known yet.
    private var next: [KafkaTopicPartition: Int64] = [:]
    private var rechecks: [KafkaTopicPartition: Recheck] = [:]
    private var lastRewind: [KafkaTopicPartition: ContinuousClock.Instant] = [:]

    init(window: Duration, rewindInterval: Duration = .milliseconds(50), rereadGrace: Duration = .seconds(10)) {
        self.window = window
        self.rewindInterval = rewindInterval
        self.rereadGrace = rereadGrace
    }

    /// Whether the partition's starting offset is still to be looked up.
    func needsStart(_ partition: KafkaTopicPartition) -> Bool { next[partition] == nil }

    /// Where a newly assigned partition starts (its committed offset, or its
    /// first offset when nothing is committed).
    mutating func start(_ partition: KafkaTopicPartition, at offset: Int64) {
        next[partition] = offset
    }

    /// Forgets revoked partitions; they start afresh when assigned again.
    mutating func forget(_ partitions: some Sequence<KafkaTopicPartition>) {
        for partition in partitions {
            next[partition] = nil
            rechecks[partition] = nil
            lastRewind[partition] = nil
        }
    }

    /// The verdict on a record at `offset`, read at `now`.
    mutating func verdict(_ partition: KafkaTopicPartition, offset: Int64, now: ContinuousClock.Instant) -> Verdict {
        guard let expected = next[partition] else {
            // No known start (the lookup failed): trust the first record.
            next[partition] = offset + 1
            return .accept
        }
        if offset == expected {
            next[partition] = offset + 1
            rechecks[partition] = nil
            return .accept
        }
        if offset < expected {
            if let rewound = lastRewind[partition], rewound.duration(to: now) < rereadGrace { return .drop }
            next[partition] = offset + 1
            rechecks[partition] = nil
            return .acceptRestart(from: expected)
        }
        if let recheck = rechecks[partition], recheck.missingFrom == expected {
            guard recheck.firstSeen.duration(to: now) >= window else {
                guard let last = lastRewind[partition], last.duration(to: now) >= rewindInterval else { return .drop }
                lastRewind[partition] = now
                return .rewind(to: expected)
            }
            next[partition] = offset + 1
            rechecks[partition] = nil
            return .acceptGap(missing: expected..<offset)
        }
        rechecks[partition] = Recheck(missingFrom: expected, firstSeen: now)
        lastRewind[partition] = now
        return .rewind(to: expected)
    }

    /// Gaps still open whose last rewind is older than ``rewindInterval`` and
    /// whose window has not passed: rewind them again. Needed for a partition
    /// that goes quiet: the records after the gap were dropped, the fetch
    /// position is past them, and no new record would bring a verdict.
    mutating func dueRewinds(now: ContinuousClock.Instant) -> [(KafkaTopicPartition, Int64)] {
        var due: [(KafkaTopicPartition, Int64)] = []
        for (partition, recheck) in rechecks where recheck.firstSeen.duration(to: now) < window {
            guard let last = lastRewind[partition], last.duration(to: now) >= rewindInterval else { continue }
            lastRewind[partition] = now
            due.append((partition, recheck.missingFrom))
        }
        return due.sorted { ($0.0.topic, $0.0.partition) < ($1.0.topic, $1.0.partition) }
    }
}
