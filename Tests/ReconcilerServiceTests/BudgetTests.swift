import Foundation
@testable import Providers
import Testing

/// The request budget's arithmetic (explicit instants) and its pacing (real time).
@Suite struct BudgetTests {
    @Test func aFullBucketBurstsThenSpacesRequestsAtTheRefillRate() {
        let t0 = ContinuousClock.now
        var bucket = TokenBucket(ratePerSecond: 2, capacity: 3, now: t0)
        let waits = (0..<6).map { _ in bucket.reserve(at: t0) }
        #expect(waits == [.zero, .zero, .zero, .milliseconds(500), .seconds(1), .milliseconds(1500)])
        // A second later two tokens came back, already promised to the waiters above.
        #expect(bucket.reserve(at: t0 + .seconds(1)) == .seconds(1))
    }

    @Test func a429HoldsEveryoneAndEmptiesTheBucket() {
        let t0 = ContinuousClock.now
        var bucket = TokenBucket(ratePerSecond: 10, capacity: 5, now: t0)
        #expect(bucket.reserve(at: t0) == .zero)
        bucket.pause(for: .seconds(3), at: t0)
        #expect(bucket.pauseRemaining(at: t0 + .seconds(1)) == .seconds(2))
        // Paused: the next requests go out after the pause, spaced at the refill rate, not as a burst.
        #expect(bucket.reserve(at: t0 + .seconds(1)) == .milliseconds(2100))
        #expect(bucket.reserve(at: t0 + .seconds(1)) == .milliseconds(2200))
    }

    @Test func aBudgetNeverExceedsItsLimitInAnyMinute() {
        // Burst plus a minute of refill is the limit itself.
        let budget = RequestBudget(requestsPerMinute: 300)
        #expect(budget.burst == 15)
        let t0 = ContinuousClock.now
        var bucket = TokenBucket(ratePerSecond: Double(300 - 15) / 60, capacity: 15, now: t0)
        var sent = 0
        while bucket.reserve(at: t0) <= .seconds(60) { sent += 1 }
        #expect(sent == 300, "requests granted by the end of the first minute: \(sent)")
    }

    @Test func acquiringPacesRealRequests() async throws {
        let budget = RequestBudget(requestsPerMinute: 1200, burst: 2) // 19.7 a second after the burst
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<12 { try await budget.acquire() }
        let elapsed = clock.now - start
        #expect(elapsed >= .milliseconds(480), "10 requests after a burst of 2 wait for the refill: \(elapsed)")
    }
}
