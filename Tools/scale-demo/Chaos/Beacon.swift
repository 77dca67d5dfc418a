import Synchronization

/// A counter that only rises, and that tasks can wait on.
final class Beacon: Sendable {
    private struct State {
        var value = 0
        var waiters: [(target: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }
    private let state = Mutex(State())

    var value: Int { state.withLock { $0.value } }

    /// Raises the value to `value` (never lowers it) and wakes whoever waited for it.
    func advance(to value: Int) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard value > state.value else { return [] }
            state.value = value
            let due = state.waiters.filter { $0.target <= value }.map(\.continuation)
            state.waiters.removeAll { $0.target <= value }
            return due
        }
        ready.forEach { $0.resume() }
    }

    /// Returns once the value is at least `target`.
    func wait(until target: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.value >= target { return true }
                state.waiters.append((target, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}
