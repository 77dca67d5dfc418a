@testable import Kafka
import Testing

/// The gap decisions alone, on a made-up clock: no broker.
@Suite struct OffsetGapTrackerTests {
    let p = KafkaTopicPartition(topic: "t", partition: 0)
    let t0 = ContinuousClock.now

    func at(_ milliseconds: Int) -> ContinuousClock.Instant { t0.advanced(by: .milliseconds(milliseconds)) }

    @Test func contiguousRecordsAreAcceptedFromTheStart() {
        var tracker = OffsetGapTracker(window: .seconds(2))
        #expect(tracker.needsStart(p))
        tracker.start(p, at: 5)
        #expect(!tracker.needsStart(p))
        #expect((5..<9).map { tracker.verdict(p, offset: $0, now: at(0)) } == Array(repeating: .accept, count: 4))
    }

    @Test func aGapIsRewoundThenFilledAndRereadRecordsAreDropped() {
        var tracker = OffsetGapTracker(window: .seconds(2), rewindInterval: .milliseconds(50))
        tracker.start(p, at: 0)
        #expect(tracker.verdict(p, offset: 0, now: at(0)) == .accept)
        // Offsets 1..<4 not visible yet: 4 arrives first.
        #expect(tracker.verdict(p, offset: 4, now: at(1)) == .rewind(to: 1))
        // What was fetched past the gap before the rewind took effect is skipped.
        #expect(tracker.verdict(p, offset: 5, now: at(2)) == .drop)
        #expect(tracker.dueRewinds(now: at(10)).isEmpty, "not again before the interval")
        #expect(tracker.verdict(p, offset: 1, now: at(20)) == .accept)
        #expect(tracker.verdict(p, offset: 2, now: at(20)) == .accept)
        // A second rewind re-reads records already handed out: dropped, not duplicated.
        #expect(tracker.verdict(p, offset: 1, now: at(30)) == .drop)
        #expect(tracker.verdict(p, offset: 3, now: at(30)) == .accept)
        #expect(tracker.dueRewinds(now: at(500)).isEmpty, "the gap closed")
    }

    @Test func aGapThatStaysOpenIsRewoundAgainThenAcceptedAfterTheWindow() {
        var tracker = OffsetGapTracker(window: .seconds(2), rewindInterval: .milliseconds(50))
        tracker.start(p, at: 10)
        #expect(tracker.verdict(p, offset: 12, now: at(0)) == .rewind(to: 10))
        #expect(tracker.verdict(p, offset: 12, now: at(60)) == .rewind(to: 10), "a record past the gap after the interval rewinds again")
        // A quiet partition is rewound by the loop's tick.
        #expect(tracker.dueRewinds(now: at(120)).map(\.1) == [10])
        #expect(tracker.dueRewinds(now: at(130)).isEmpty)
        #expect(tracker.verdict(p, offset: 12, now: at(2100)) == .acceptGap(missing: 10..<12))
        #expect(tracker.verdict(p, offset: 13, now: at(2100)) == .accept)
        #expect(tracker.dueRewinds(now: at(3000)).isEmpty)
    }

    @Test func offsetsGoingBackWithoutARewindAreAcceptedAsARestart() {
        var tracker = OffsetGapTracker(window: .seconds(2))
        tracker.start(p, at: 100)
        #expect(tracker.verdict(p, offset: 100, now: at(0)) == .accept)
        #expect(tracker.verdict(p, offset: 0, now: at(1)) == .acceptRestart(from: 101))
        #expect(tracker.verdict(p, offset: 1, now: at(1)) == .accept)
    }

    @Test func anUnknownStartTrustsTheFirstRecordAndAReassignedPartitionStartsAfresh() {
        var tracker = OffsetGapTracker(window: .seconds(2))
        #expect(tracker.verdict(p, offset: 7, now: at(0)) == .accept)
        #expect(tracker.verdict(p, offset: 9, now: at(0)) == .rewind(to: 8))
        tracker.forget([p])
        #expect(tracker.needsStart(p))
        #expect(tracker.dueRewinds(now: at(1000)).isEmpty, "a revoked partition's open gap is forgotten")
        tracker.start(p, at: 9)
        #expect(tracker.verdict(p, offset: 9, now: at(1000)) == .accept)
    }
}
