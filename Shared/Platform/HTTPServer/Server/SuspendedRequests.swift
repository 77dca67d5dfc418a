import Synchronization

/// The requests whose connection is suspended while their handler runs, with
/// their deadlines: a suspended connection never times out in libmicrohttpd,
/// so the server answers these itself on timeout or at the end of a shutdown.
final class SuspendedRequests: Sendable {
    private let entries = Mutex<[ObjectIdentifier: (state: RequestState, deadline: ContinuousClock.Instant)]>([:])

    func insert(_ state: RequestState, deadline: ContinuousClock.Instant) {
        entries.withLock { $0[ObjectIdentifier(state)] = (state, deadline) }
    }

    func remove(_ state: RequestState) {
        _ = entries.withLock { $0.removeValue(forKey: ObjectIdentifier(state)) }
    }

    var count: Int { entries.withLock { $0.count } }

    /// Removes and returns the requests whose deadline is at or before `now`.
    func takeExpired(now: ContinuousClock.Instant) -> [RequestState] {
        entries.withLock { entries in
            let expired = entries.values.filter { $0.deadline <= now }.map(\.state)
            for state in expired { entries.removeValue(forKey: ObjectIdentifier(state)) }
            return expired
        }
    }

    /// Removes and returns every request (end of the shutdown grace period).
    func takeAll() -> [RequestState] {
        entries.withLock { entries in
            let all = entries.values.map(\.state)
            entries.removeAll()
            return all
        }
    }
}
