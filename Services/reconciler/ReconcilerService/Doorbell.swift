import Synchronization

/// Wakes one waiting task: rung by whoever changes what it waits for, or
/// timing out. A ring with nobody waiting is kept for the next wait.
/// Waiting is not cancellable on purpose (callers bound it by the timeout), so
/// it also works in a task that is already cancelled, e.g. while draining.
final class Doorbell: Sendable {
    private struct State {
        var rung = false
        var waiter: (id: UInt64, continuation: CheckedContinuation<Void, Never>)?
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }

    /// Returns when rung (or already rung since the last wait), or after `timeout`.
    func wait(upTo timeout: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let id = state.withLock { state -> UInt64? in
                if state.rung {
                    state.rung = false
                    return nil
                }
                // One waiter at a time; a second would replace (and so release) the first.
                let previous = state.waiter?.continuation
                state.nextID += 1
                state.waiter = (state.nextID, continuation)
                if let previous { Task { previous.resume() } }
                return state.nextID
            }
            guard let id else { return continuation.resume() }
            Task {
                try? await Task.sleep(for: max(timeout, .zero))
                self.expire(id)
            }
        }
    }

    private func expire(_ id: UInt64) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.waiter?.id == id else { return nil }
            defer { state.waiter = nil }
            return state.waiter?.continuation
        }
        waiter?.resume()
    }
}
