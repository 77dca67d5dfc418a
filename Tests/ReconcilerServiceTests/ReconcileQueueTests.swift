import Foundation
import BillingModel
@testable import ReconcilerService
import Testing

/// The queue's bookkeeping on explicit times: coalescing, follow-ups, parking, tickets.
@Suite struct ReconcileQueueTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    let sub = EntityRef(.lemonsqueezy, .subscription, "42")

    @Test func aBurstWithinTheWindowBecomesOneFetchThatHoldsEveryTicket() {
        var queue = ReconcileQueue(coalesceWindow: 1, maxPending: 10)
        #expect(queue.add(Fixture.webhook(sub, receivedAt: t0), ticket: 1, now: t0) == .queued)
        #expect(queue.add(Fixture.webhook(sub, receivedAt: t0.addingTimeInterval(0.3)), ticket: 1, now: t0.addingTimeInterval(0.3)) == .coalesced)
        #expect(queue.add(Fixture.webhook(sub, receivedAt: t0.addingTimeInterval(0.6)), ticket: 2, now: t0.addingTimeInterval(0.6)) == .coalesced)
        #expect(queue.takeDue(now: t0.addingTimeInterval(0.9), limit: 10).isEmpty, "not due before the window ends")
        // The window does not slide: due one window after the first request.
        #expect(queue.nextDue() == t0.addingTimeInterval(1))
        let due = queue.takeDue(now: t0.addingTimeInterval(1), limit: 10)
        #expect(due.count == 1 && due[0].requests == 3 && due[0].tickets == [1, 1, 2])
        #expect(due[0].oldestReceivedAt == t0 && due[0].oldestWebhookAt == t0)
        #expect(queue.succeeded(sub) == [1, 1, 2])
        #expect(queue.counts == (0, 0, 0))
    }

    @Test func aCommandWaitsUntilTheProviderHasHadTime() {
        var queue = ReconcileQueue(coalesceWindow: 1, maxPending: 10)
        let command = ReconcileRequest(target: sub, trigger: .command("c1", requestedAt: t0, notBefore: t0.addingTimeInterval(5)))
        #expect(queue.add(Fixture.webhook(sub, receivedAt: t0), ticket: 1, now: t0) == .queued)
        #expect(queue.add(command, ticket: 1, now: t0) == .coalesced)
        #expect(queue.takeDue(now: t0.addingTimeInterval(2), limit: 10).isEmpty)
        let due = queue.takeDue(now: t0.addingTimeInterval(5), limit: 10)
        #expect(due.map(\.trigger.label) == ["command:c1"], "the command decided the time, so it names the fetch")
    }

    @Test func aRequestDuringAFetchWaitsForItAsAFollowUp() {
        var queue = ReconcileQueue(coalesceWindow: 0, maxPending: 10)
        _ = queue.add(Fixture.webhook(sub), ticket: 1, now: t0)
        #expect(queue.takeDue(now: t0, limit: 10).count == 1)
        #expect(queue.add(Fixture.webhook(sub), ticket: 2, now: t0) == .queued)
        #expect(queue.takeDue(now: t0.addingTimeInterval(1), limit: 10).isEmpty, "one fetch per object at a time")
        #expect(queue.nextDue() == nil, "the follow-up cannot start yet, so it schedules no wake-up")
        #expect(queue.succeeded(sub) == [1])
        let followUp = queue.takeDue(now: t0.addingTimeInterval(1), limit: 10)
        #expect(followUp.map(\.tickets) == [[2]])
    }

    @Test func aFailedFetchIsParkedItsTicketsReleasedAndLaterRequestsReleasedAtOnce() {
        var queue = ReconcileQueue(coalesceWindow: 0, maxPending: 10)
        _ = queue.add(Fixture.webhook(sub, receivedAt: t0), ticket: 1, now: t0)
        _ = queue.takeDue(now: t0, limit: 10)
        _ = queue.add(Fixture.webhook(sub, receivedAt: t0.addingTimeInterval(1)), ticket: 2, now: t0) // follow-up while in flight
        #expect(queue.failed(sub, retryAt: t0.addingTimeInterval(30)) == [1, 2], "both batches may commit")
        #expect(queue.counts == (0, 0, 1))
        #expect(queue.add(Fixture.webhook(sub, receivedAt: t0.addingTimeInterval(2)), ticket: 3, now: t0) == .parked)
        #expect(queue.takeDue(now: t0.addingTimeInterval(29), limit: 10).isEmpty)
        let retry = queue.takeDue(now: t0.addingTimeInterval(30), limit: 10)
        #expect(retry.count == 1 && retry[0].attempts == 1 && retry[0].tickets.isEmpty && retry[0].requests == 3)
        #expect(retry[0].oldestWebhookAt == t0, "the gauge keeps the oldest webhook until a snapshot answers it")
        #expect(queue.oldestUnreconciledWebhook == t0)
        #expect(queue.succeeded(sub).isEmpty)
        #expect(queue.oldestUnreconciledWebhook == nil)
    }

    @Test func aFullQueueDropsNewObjectsButStillCoalescesKnownOnes() {
        var queue = ReconcileQueue(coalesceWindow: 1, maxPending: 1)
        #expect(queue.add(Fixture.webhook(sub), ticket: 1, now: t0) == .queued)
        #expect(queue.add(Fixture.webhook(EntityRef(.paystack, .transaction, "ref-1")), ticket: 1, now: t0) == .dropped)
        #expect(queue.add(Fixture.webhook(sub), ticket: 1, now: t0) == .coalesced)
    }

    @Test func flushMakesWaitingFetchesDueButLeavesRetriesToTheirBackoff() {
        var queue = ReconcileQueue(coalesceWindow: 10, maxPending: 10)
        let other = EntityRef(.paystack, .subscription, "SUB_1")
        _ = queue.add(Fixture.webhook(other), ticket: 1, now: t0)
        _ = queue.takeDue(now: t0.addingTimeInterval(10), limit: 10)
        _ = queue.failed(other, retryAt: t0.addingTimeInterval(100))
        _ = queue.add(Fixture.webhook(sub), ticket: 2, now: t0.addingTimeInterval(10))
        queue.flush(now: t0.addingTimeInterval(11))
        #expect(queue.takeDue(now: t0.addingTimeInterval(11), limit: 10).map(\.target) == [sub])
    }
}

extension ReconcileQueueTests {
    @Test func aFetchTheBudgetCannotStartInTimeLetsItsBatchCommit() {
        var queue = ReconcileQueue(coalesceWindow: 1, maxPending: 10)
        let other = EntityRef(.lemonsqueezy, .order, "7")
        _ = queue.add(Fixture.webhook(sub), ticket: 1, now: t0)
        _ = queue.add(Fixture.webhook(other), ticket: 2, now: t0.addingTimeInterval(50))
        #expect(queue.releaseHeld(now: t0.addingTimeInterval(59), maximumHold: 60).isEmpty)
        #expect(queue.releaseHeld(now: t0.addingTimeInterval(60), maximumHold: 60) == [1], "only what waited the whole bound")
        #expect(queue.add(Fixture.webhook(sub), ticket: 3, now: t0.addingTimeInterval(61)) == .overdue)
        #expect(queue.counts.waiting == 2, "still fetched, later")
        let due = queue.takeDue(now: t0.addingTimeInterval(61), limit: 10)
        #expect(due.first { $0.target == sub }?.tickets.isEmpty == true)
        #expect(due.first { $0.target == other }?.tickets == [2])
    }
}
