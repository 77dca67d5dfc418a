import Synchronization

/// The live stream's memory in one checkout replica: the changes of the last
/// few minutes per user (so a poll that names the last change it saw misses
/// nothing), and the polls waiting for a user's next change.
///
/// Every replica reads the whole topic (``EntitlementChangeListener``), so
/// any replica can answer any user's poll; nothing is shared between them.
public final class EntitlementChangeHub: Sendable {
    /// What a poll gets.
    enum Answer: Sendable, Equatable {
        /// The changes after the poll's cursor, oldest first; empty when none came in time.
        case changes([StreamedEntitlementChange])
        /// The cursor is no longer (or was never) in memory: reread the entitlements.
        case unknownCursor
    }

    /// More polls are waiting than ``EntitlementStreamSettings/maxWaiting``.
    struct Busy: Error {}

    /// A poll answered at once, or admitted to wait under this id.
    private enum Admission {
        case ready(Answer)
        case waiter(UInt64)
    }

    private struct Kept {
        let change: StreamedEntitlementChange
        let at: ContinuousClock.Instant
    }

    private struct State {
        var recent: [String: [Kept]] = [:]
        /// Every kept change's user, oldest first, to expire them in order.
        var arrival: [(user: String, id: String, at: ContinuousClock.Instant)] = []
        var arrivalStart = 0
        var kept = 0
        var waiters: [String: [UInt64: CheckedContinuation<[StreamedEntitlementChange], Never>]] = [:]
        var waiting = 0
        var nextWaiter: UInt64 = 0
        /// Waiters admitted whose continuation is not registered yet.
        var unregistered: Set<UInt64> = []
        /// Of those, the ones whose time ran out (or whose request went away) meanwhile.
        var settledEarly: Set<UInt64> = []
    }

    let settings: EntitlementStreamSettings
    private let state = Mutex(State())

    public init(settings: EntitlementStreamSettings = EntitlementStreamSettings()) {
        self.settings = settings
    }

    /// Polls waiting now (the `checkout_stream_waiting` gauge).
    public var waitingPolls: Int { state.withLock { $0.waiting } }

    /// Keeps `change` and hands it to the user's waiting polls. A change
    /// already kept (the outbox publishes at least once) is dropped.
    func publish(_ change: StreamedEntitlementChange, now: ContinuousClock.Instant = .now) {
        let woken = state.withLock { state -> [CheckedContinuation<[StreamedEntitlementChange], Never>] in
            expire(&state, now: now)
            var list = state.recent[change.appUserID] ?? []
            if list.contains(where: { $0.change.id == change.id }) { return [] }
            list.append(Kept(change: change, at: now))
            if list.count > settings.replayPerUser {
                list.removeFirst()
                state.kept -= 1
            }
            state.recent[change.appUserID] = list
            state.arrival.append((change.appUserID, change.id, now))
            state.kept += 1
            while state.kept > settings.replayTotal, let oldest = popArrival(&state) { drop(&state, user: oldest.user, id: oldest.id) }
            let found = state.waiters.removeValue(forKey: change.appUserID).map { Array($0.values) } ?? []
            state.waiting -= found.count
            return found
        }
        for waiter in woken { waiter.resume(returning: [change]) }
    }

    /// The user's changes after `cursor`, at once when there are some;
    /// otherwise the next one, waiting up to `timeout`.
    /// - Parameter cursor: the id of the last change the caller saw; nil to wait for the next.
    /// - Throws: ``Busy`` when too many polls wait already.
    func next(for user: String, after cursor: String?, timeout: Duration) async throws(Busy) -> Answer {
        let admitted: Admission = try state.withLock { state throws(Busy) -> Admission in
            if let cursor {
                guard let list = state.recent[user], let index = list.firstIndex(where: { $0.change.id == cursor }) else {
                    return .ready(.unknownCursor)
                }
                if index < list.count - 1 { return .ready(.changes(list[(index + 1)...].map(\.change))) }
            }
            guard state.waiting < settings.maxWaiting else { throw Busy() }
            state.waiting += 1
            state.nextWaiter += 1
            state.unregistered.insert(state.nextWaiter)
            return .waiter(state.nextWaiter)
        }
        let id: UInt64
        switch admitted {
        case .ready(let answer): return answer
        case .waiter(let waiter): id = waiter
        }
        // The timer settles the wait with nothing; a change settles it first
        // when one comes. A cancelled timer (the wait is over) does nothing.
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            self?.settle(user: user, waiter: id)
        }
        defer { timer.cancel() }
        let changes = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let early = state.withLock { state in
                    state.unregistered.remove(id)
                    if state.settledEarly.remove(id) != nil {
                        state.waiting -= 1
                        return true
                    }
                    state.waiters[user, default: [:]][id] = continuation
                    return false
                }
                if early { continuation.resume(returning: []) }
            }
        } onCancel: {
            settle(user: user, waiter: id)
        }
        return .changes(changes)
    }

    /// Ends one wait with no changes (its time is up, or its request went away).
    private func settle(user: String, waiter id: UInt64) {
        let continuation = state.withLock { state -> CheckedContinuation<[StreamedEntitlementChange], Never>? in
            guard let continuation = state.waiters[user]?.removeValue(forKey: id) else {
                // Not registered yet: the registration answers at once. Or
                // already answered by a change: nothing is left to do.
                if state.unregistered.contains(id) { state.settledEarly.insert(id) }
                return nil
            }
            if state.waiters[user]?.isEmpty == true { state.waiters[user] = nil }
            state.waiting -= 1
            return continuation
        }
        continuation?.resume(returning: [])
    }

    // MARK: - Expiry

    private func expire(_ state: inout State, now: ContinuousClock.Instant) {
        while state.arrivalStart < state.arrival.count, now - state.arrival[state.arrivalStart].at > settings.replayWindow,
            let oldest = popArrival(&state)
        {
            drop(&state, user: oldest.user, id: oldest.id)
        }
    }

    private func popArrival(_ state: inout State) -> (user: String, id: String)? {
        guard state.arrivalStart < state.arrival.count else { return nil }
        let (user, id, _) = state.arrival[state.arrivalStart]
        state.arrivalStart += 1
        // Compact once the consumed head is most of the array.
        if state.arrivalStart > 1024, state.arrivalStart * 2 > state.arrival.count {
            state.arrival.removeFirst(state.arrivalStart)
            state.arrivalStart = 0
        }
        return (user, id)
    }

    /// Drops the user's change `id` if it is still their oldest (the
    /// per-user cap may have dropped it already).
    private func drop(_ state: inout State, user: String, id: String) {
        guard var list = state.recent[user], list.first?.change.id == id else { return }
        list.removeFirst()
        state.kept -= 1
        state.recent[user] = list.isEmpty ? nil : list
    }
}
