import Foundation
import Synchronization
@testable import StorefrontKit

/// A clock that moves only when a test says so: ``advance(by:)`` wakes the
/// sleepers whose time came, so a five-minute refresh takes no real time.
final class ManualClock: StorefrontClock {
    private struct Sleeper {
        var id: UUID
        var deadline: Date
        var continuation: CheckedContinuation<Void, any Error>
    }

    private let state: Mutex<(now: Date, sleepers: [Sleeper])>

    /// Starts at `now` (by default 2026-12-15T10:00:00Z, inside the fixtures' paid period).
    init(now: Date = WireDate.parse("2026-12-15T10:00:00.000Z")!) {
        state = Mutex((now, []))
    }

    var now: Date { state.withLock { $0.now } }

    /// How many tasks are sleeping on this clock.
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    func sleep(for duration: Duration) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let wakeNow = state.withLock { state -> Bool in
                    let deadline = state.now.addingTimeInterval(duration.timeInterval)
                    guard deadline > state.now else { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if wakeNow { continuation.resume() }
                if Task.isCancelled { cancel(id) }
            }
        } onCancel: {
            cancel(id)
        }
    }

    private func cancel(_ id: UUID) {
        let sleeper = state.withLock { state -> Sleeper? in
            guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
            return state.sleepers.remove(at: index)
        }
        sleeper?.continuation.resume(throwing: CancellationError())
    }

    /// Moves the clock on and wakes every sleeper whose time came.
    func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.addingTimeInterval(duration.timeInterval)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Waits (a bound, in real time, for a loaded machine) until `count` tasks sleep on the clock.
    func waitForSleepers(_ count: Int = 1) async throws {
        try await eventually("\(count) sleeper(s) on the clock") { self.sleeperCount >= count }
    }
}

struct TimedOut: Error, CustomStringConvertible {
    var description: String
}

/// Polls `condition` every few milliseconds until it holds; throws after
/// `limit` (a bound for a loaded machine, not a pace: it returns as soon as it holds).
func eventually(_ what: String, limit: Duration = .seconds(30), _ condition: @Sendable () async -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    while !(await condition()) {
        guard ContinuousClock.now < deadline else { throw TimedOut(description: "timed out waiting for \(what)") }
        try await Task.sleep(for: .milliseconds(5))
    }
}
