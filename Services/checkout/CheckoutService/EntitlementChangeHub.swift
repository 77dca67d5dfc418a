import Synchronization

/// The live stream's memory in one checkout replica: the changes of the last
/// few minutes per user (so a poll that names the last change it saw misses
/// nothing), and the polls waiting for a user's next change.
///
/// Every replica reads the whole topic (``EntitlementChangeListener``), so
/// any replica can answer any user's poll; nothing is shared between them.
///
/// Both are budgeted, so one account cannot take the replica's connections
/// or memory: a user waits on at most ``EntitlementStreamSettings/maxPerUser``
/// polls (a further one ends that user's oldest, answered with no changes, so
/// the app polls again and misses nothing), all users on at most
/// ``EntitlementStreamSettings/maxWaiting``, and the changes kept cost at most
/// ``EntitlementStreamSettings/replayBytes`` (oldest dropped first; a cursor
/// dropped with them is answered with ``Answer/unknownCursor``).
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

    /// What the budgets did since start (sampled into `checkout_stream_*_total`).
    struct Tally: Sendable, Equatable {
        /// Waiting polls ended early by a newer poll of the same user.
        var evicted = 0
        /// Polls refused with ``Busy``.
        var refused = 0
        /// Changes dropped by the count or byte budget before their window ended.
        var dropped = 0
    }

    private struct State {
        var recent: [String: [Kept]] = [:]
        /// Every kept change's user, oldest first, to expire them in order.
        var arrival: [(user: String, id: String, at: ContinuousClock.Instant)] = []
        var arrivalStart = 0
        var kept = 0
        /// What the kept changes cost, by ``EntitlementChangeHub/cost(of:)``.
        var keptBytes = 0
        var waiters: [String: [UInt64: CheckedContinuation<[StreamedEntitlementChange], Never>]] = [:]
        var waiting = 0
        /// Each user's admitted polls (registered or not), oldest first.
        var admitted: [String: [UInt64]] = [:]
        var nextWaiter: UInt64 = 0
        /// Waiters admitted whose continuation is not registered yet.
        var unregistered: Set<UInt64> = []
        /// Of those, the ones whose time ran out (or whose request went away) meanwhile.
        var settledEarly: Set<UInt64> = []
        var tally = Tally()
    }

    let settings: EntitlementStreamSettings
    private let state = Mutex(State())

    public init(settings: EntitlementStreamSettings = EntitlementStreamSettings()) {
        self.settings = settings
    }

    /// Polls waiting now (the `checkout_stream_waiting` gauge).
    public var waitingPolls: Int { state.withLock { $0.waiting } }

    /// Bytes the kept changes cost now (the `checkout_stream_replay_bytes` gauge).
    public var replayBytes: Int { state.withLock { $0.keptBytes } }

    /// Evictions, refusals and budget drops since start.
    var tally: Tally { state.withLock { $0.tally } }

    /// What keeping `change` costs against ``EntitlementStreamSettings/replayBytes``:
    /// the record's bytes, its id and user (the keys it is found by), and a
    /// fixed 128 bytes for the bookkeeping around it.
    static func cost(of change: StreamedEntitlementChange) -> Int {
        change.value.count + 2 * change.id.utf8.count + 2 * change.appUserID.utf8.count + 128
    }

    /// Keeps `change` and hands it to the user's waiting polls. A change
    /// already kept (the outbox publishes at least once) is dropped.
    func publish(_ change: StreamedEntitlementChange, now: ContinuousClock.Instant = .now) {
        let woken = state.withLock { state -> [CheckedContinuation<[StreamedEntitlementChange], Never>] in
            expire(&state, now: now)
            var list = state.recent[change.appUserID] ?? []
            if list.contains(where: { $0.change.id == change.id }) { return [] }
            list.append(Kept(change: change, at: now))
            if list.count > settings.replayPerUser {
                let first = list.removeFirst()
                state.kept -= 1
                state.keptBytes -= Self.cost(of: first.change)
                state.tally.dropped += 1
            }
            state.recent[change.appUserID] = list
            state.arrival.append((change.appUserID, change.id, now))
            state.kept += 1
            state.keptBytes += Self.cost(of: change)
            while state.kept > settings.replayTotal || state.keptBytes > settings.replayBytes, let oldest = popArrival(&state) {
                if drop(&state, user: oldest.user, id: oldest.id) { state.tally.dropped += 1 }
            }
            let found = state.waiters.removeValue(forKey: change.appUserID) ?? [:]
            state.waiting -= found.count
            if var admitted = state.admitted[change.appUserID] {
                admitted.removeAll { found[$0] != nil }
                state.admitted[change.appUserID] = admitted.isEmpty ? nil : admitted
            }
            return Array(found.values)
        }
        for waiter in woken { waiter.resume(returning: [change]) }
    }

    /// The user's changes after `cursor`, at once when there are some;
    /// otherwise the next one, waiting up to `timeout`.
    /// - Parameter cursor: the id of the last change the caller saw; nil to wait for the next.
    /// When the user has ``EntitlementStreamSettings/maxPerUser`` polls
    /// waiting already, the oldest of them is answered with no changes first.
    /// - Throws: ``Busy`` when too many polls wait already.
    func next(for user: String, after cursor: String?, timeout: Duration) async throws(Busy) -> Answer {
        var evicted: CheckedContinuation<[StreamedEntitlementChange], Never>?
        let outcome = state.withLock { state -> Result<Admission, Busy> in
            if let cursor {
                guard let list = state.recent[user], let index = list.firstIndex(where: { $0.change.id == cursor }) else {
                    return .success(.ready(.unknownCursor))
                }
                if index < list.count - 1 { return .success(.ready(.changes(list[(index + 1)...].map(\.change)))) }
            }
            // The user's own cap first: ending their oldest poll frees a
            // place, so a user at their cap is never refused for the global one.
            if let mine = state.admitted[user], mine.count >= settings.maxPerUser, let oldest = mine.first {
                evicted = settleLocked(&state, user: user, waiter: oldest)
                state.tally.evicted += 1
            }
            guard state.waiting < settings.maxWaiting else {
                state.tally.refused += 1
                return .failure(Busy())
            }
            state.waiting += 1
            state.nextWaiter += 1
            state.unregistered.insert(state.nextWaiter)
            state.admitted[user, default: []].append(state.nextWaiter)
            return .success(.waiter(state.nextWaiter))
        }
        evicted?.resume(returning: [])
        let id: UInt64
        let admitted = try outcome.get()
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
                    // Counted out of `waiting` and `admitted` when it was settled.
                    if state.settledEarly.remove(id) != nil { return true }
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
        let continuation = state.withLock { settleLocked(&$0, user: user, waiter: id) }
        continuation?.resume(returning: [])
    }

    /// Takes one wait out of the state; the caller resumes the continuation
    /// returned, with no changes, after the lock.
    private func settleLocked(
        _ state: inout State, user: String, waiter id: UInt64
    ) -> CheckedContinuation<
        [StreamedEntitlementChange], Never
    >? {
        if var admitted = state.admitted[user], let index = admitted.firstIndex(of: id) {
            admitted.remove(at: index)
            state.admitted[user] = admitted.isEmpty ? nil : admitted
        }
        guard let continuation = state.waiters[user]?.removeValue(forKey: id) else {
            // Not registered yet: the registration answers at once, and its
            // place is free now (so an evicted poll makes room at once). Or
            // already answered by a change: nothing is left to do.
            if state.unregistered.contains(id), state.settledEarly.insert(id).inserted { state.waiting -= 1 }
            return nil
        }
        if state.waiters[user]?.isEmpty == true { state.waiters[user] = nil }
        state.waiting -= 1
        return continuation
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
    /// per-user cap may have dropped it already); true when it did.
    @discardableResult
    private func drop(_ state: inout State, user: String, id: String) -> Bool {
        guard var list = state.recent[user], list.first?.change.id == id else { return false }
        let first = list.removeFirst()
        state.kept -= 1
        state.keptBytes -= Self.cost(of: first.change)
        state.recent[user] = list.isEmpty ? nil : list
        return true
    }
}
