import Kafka
import Synchronization

/// Consumed batches in consumption order, each with the number of its
/// requests not yet dealt with. Offsets are committed in that order only, so
/// a commit never covers a record whose snapshot is still owed.
final class BatchTracker: Sendable {
    private struct Tracked {
        let ticket: Int
        let batch: KafkaConsumerBatch
        var outstanding: Int
    }

    private struct State {
        var batches: [Tracked] = []
        var nextTicket = 1
    }

    private let state = Mutex(State())
    /// Rung whenever a batch may have become committable.
    let progress = Doorbell()

    /// Tracks `batch`, which waits for `expected` ticket units; returns its ticket.
    /// Only the batch's commit positions are kept, not its records: a batch
    /// may wait here for up to `RECONCILER_MAX_COMMIT_DELAY`, and 64 batches
    /// of webhook envelopes were most of the reconciler's memory (issue 22).
    func add(_ batch: KafkaConsumerBatch, expected: Int) -> Int {
        let positions = batch.positionsOnly()
        let ticket = state.withLock { state in
            let ticket = state.nextTicket
            state.nextTicket += 1
            state.batches.append(Tracked(ticket: ticket, batch: positions, outstanding: expected))
            return ticket
        }
        if expected == 0 { progress.ring() }
        return ticket
    }

    /// Releases one unit per element (a ticket may appear several times).
    func settle(_ tickets: [Int]) {
        state.withLock { state in
            for ticket in tickets {
                guard let index = state.batches.firstIndex(where: { $0.ticket == ticket }) else { continue }
                state.batches[index].outstanding -= 1
            }
        }
        progress.ring()
    }

    /// Removes and returns the leading batches that are complete, oldest first.
    func takeCommittable() -> [KafkaConsumerBatch] {
        state.withLock { state in
            let count = state.batches.prefix { $0.outstanding <= 0 }.count
            defer { state.batches.removeFirst(count) }
            return state.batches.prefix(count).map(\.batch)
        }
    }

    /// Batches not yet committed.
    var count: Int { state.withLock { $0.batches.count } }
}
