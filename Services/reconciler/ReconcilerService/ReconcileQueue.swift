import Foundation

/// The objects waiting for a fetch, and the consumed batches waiting on them.
/// Pure bookkeeping on explicit times (the ``Reconciler`` drives it under a lock).
///
/// - Coalescing: the first request for an object makes it due one coalescing
///   window later; requests arriving before it starts join it (the window does
///   not slide, so a steady stream still gets a fetch per window). A command's
///   request delays the fetch until its `notBefore`.
/// - One fetch per object at a time: a request arriving while the object is
///   being fetched waits in a follow-up entry, which starts after the current
///   fetch ends (the current one may have started before the change behind
///   the request).
/// - Tickets: each request holds one unit of its batch's ticket until the
///   fetch's snapshot is published, until the fetch failed and the object is
///   parked for a retry, or until it has waited ``releaseHeld(now:maximumHold:)``'s
///   bound (a backlog the provider budget cannot clear quickly). Then the
///   ticket is released: the batch may be committed, and the fetch lives in
///   memory only (the next sweep covers it after a crash).
struct ReconcileQueue: Sendable {
    struct Entry: Sendable {
        let target: EntityRef
        /// The first request's trigger, or the first command's (its label goes into the snapshot).
        var trigger: ReconcileTrigger
        /// How many requests this entry answers.
        var requests: Int
        var customerID: String?
        /// The oldest `receivedAt` among its requests (snapshot lag).
        var oldestReceivedAt: Date
        /// The oldest webhook among its requests (the unreconciled-webhook gauge).
        var oldestWebhookAt: Date?
        var dueAt: Date
        /// Failed fetches so far (drives the backoff); 0 for a fresh entry.
        var attempts = 0
        /// Failed and waiting to be retried: new requests are released at once.
        var parked = false
        /// Held its tickets for too long and let them go: new requests are released at once too.
        var detached = false
        /// When the reconciler first queued it (its own clock).
        var queuedAt: Date
        /// Ticket units held until the snapshot is published.
        var tickets: [Int] = []

        init(_ request: ReconcileRequest, dueAt: Date, queuedAt: Date) {
            self.queuedAt = queuedAt
            target = request.target
            trigger = request.trigger
            requests = 1
            customerID = request.customerID
            oldestReceivedAt = request.trigger.receivedAt
            oldestWebhookAt = request.trigger.kind == .webhook ? request.trigger.receivedAt : nil
            self.dueAt = dueAt
        }

        mutating func absorb(_ request: ReconcileRequest) {
            // A command decides when the fetch happens, so it names it.
            if request.trigger.kind == .command, trigger.kind != .command { trigger = request.trigger }
            requests += 1
            customerID = customerID ?? request.customerID
            oldestReceivedAt = min(oldestReceivedAt, request.trigger.receivedAt)
            if request.trigger.kind == .webhook { oldestWebhookAt = min(oldestWebhookAt ?? request.trigger.receivedAt, request.trigger.receivedAt) }
            if let notBefore = request.trigger.notBefore { dueAt = max(dueAt, notBefore) }
        }

        /// Folds `older` (the entry that was in flight, now failed) into this follow-up.
        mutating func absorb(failed older: Entry) {
            if older.trigger.kind == .command || trigger.kind != .command { trigger = older.trigger }
            requests += older.requests
            customerID = customerID ?? older.customerID
            oldestReceivedAt = min(oldestReceivedAt, older.oldestReceivedAt)
            if let webhook = older.oldestWebhookAt { oldestWebhookAt = min(oldestWebhookAt ?? webhook, webhook) }
            attempts = max(attempts, older.attempts)
        }
    }

    /// What ``add(_:ticket:now:)`` did with a request.
    enum Added: Sendable, Equatable {
        /// A new entry; the ticket unit is held.
        case queued
        /// Joined an entry already waiting; the ticket unit is held.
        case coalesced
        /// Joined an entry parked for a retry; the ticket unit is released at once.
        case parked
        /// Joined an entry that let its tickets go (overdue); the ticket unit is released at once.
        case overdue
        /// The queue is full; the ticket unit is released at once and the request forgotten.
        case dropped
    }

    let coalesceWindow: TimeInterval
    let maxPending: Int
    private(set) var pending: [EntityRef: Entry] = [:]
    private(set) var inFlight: [EntityRef: Entry] = [:]

    init(coalesceWindow: TimeInterval, maxPending: Int) {
        self.coalesceWindow = max(0, coalesceWindow)
        self.maxPending = max(1, maxPending)
    }

    /// Adds a request; `ticket` (nil for none) is held by the entry unless the
    /// result says it was released.
    mutating func add(_ request: ReconcileRequest, ticket: Int?, now: Date) -> Added {
        if var entry = pending[request.target] {
            entry.absorb(request)
            let result: Added
            if entry.parked {
                result = .parked
            } else if entry.detached {
                result = .overdue
            } else {
                if let ticket { entry.tickets.append(ticket) }
                result = .coalesced
            }
            pending[request.target] = entry
            return result
        }
        guard pending.count < maxPending else { return .dropped }
        var due = now.addingTimeInterval(coalesceWindow)
        if let notBefore = request.trigger.notBefore { due = max(due, notBefore) }
        var entry = Entry(request, dueAt: due, queuedAt: now)
        if let ticket { entry.tickets.append(ticket) }
        pending[request.target] = entry
        return .queued
    }

    /// Up to `limit` due entries, earliest first, moved to in flight. An
    /// object already in flight is not taken again until that fetch ends.
    mutating func takeDue(now: Date, limit: Int) -> [Entry] {
        guard limit > 0 else { return [] }
        let due = pending.values.filter { $0.dueAt <= now && inFlight[$0.target] == nil }
            .sorted { ($0.dueAt, $0.target.description) < ($1.dueAt, $1.target.description) }
            .prefix(limit)
        for entry in due {
            pending[entry.target] = nil
            inFlight[entry.target] = entry
        }
        return Array(due)
    }

    /// When the next entry that can start is due (nil: none waiting).
    func nextDue() -> Date? {
        pending.values.filter { inFlight[$0.target] == nil }.map(\.dueAt).min()
    }

    /// The fetch's snapshot is published: returns the ticket units to release.
    mutating func succeeded(_ target: EntityRef) -> [Int] {
        inFlight.removeValue(forKey: target)?.tickets ?? []
    }

    /// The fetch failed for a reason that waiting may cure: the entry is
    /// parked until `retryAt` (merged with any follow-up that arrived
    /// meanwhile). Returns the ticket units to release, the follow-up's included.
    mutating func failed(_ target: EntityRef, retryAt: Date) -> [Int] {
        guard var entry = inFlight.removeValue(forKey: target) else { return [] }
        entry.attempts += 1
        var released = entry.tickets
        entry.tickets = []
        if var followUp = pending[target] {
            released += followUp.tickets
            followUp.tickets = []
            followUp.absorb(failed: entry)
            followUp.parked = true
            followUp.dueAt = max(followUp.dueAt, retryAt)
            pending[target] = followUp
        } else {
            entry.parked = true
            entry.dueAt = retryAt
            pending[target] = entry
        }
        return released
    }

    /// The fetch failed for good (a request the provider can never answer):
    /// the entry is forgotten. Returns the ticket units to release.
    mutating func abandoned(_ target: EntityRef) -> [Int] {
        inFlight.removeValue(forKey: target)?.tickets ?? []
    }

    /// Lets go of the tickets of entries that have waited `maximumHold` since
    /// they were queued without their fetch starting (the budget or the
    /// concurrency limit is behind), so their batches can be committed and
    /// the consumer keeps polling. Returns the ticket units to release.
    mutating func releaseHeld(now: Date, maximumHold: TimeInterval) -> [Int] {
        var released: [Int] = []
        for (target, entry) in pending where !entry.tickets.isEmpty && now.timeIntervalSince(entry.queuedAt) >= maximumHold {
            released += entry.tickets
            pending[target]?.tickets = []
            pending[target]?.detached = true
        }
        return released
    }

    /// Makes every waiting (not parked) entry due now: a stopping reconciler
    /// fetches what it holds tickets for instead of waiting out windows.
    mutating func flush(now: Date) {
        for (target, entry) in pending where !entry.parked && entry.dueAt > now {
            pending[target]?.dueAt = now
        }
    }

    /// The oldest webhook not yet answered by a published snapshot (waiting, in flight or parked).
    var oldestUnreconciledWebhook: Date? {
        (pending.values.compactMap(\.oldestWebhookAt) + inFlight.values.compactMap(\.oldestWebhookAt)).min()
    }

    /// Entries by state.
    var counts: (waiting: Int, inFlight: Int, parked: Int) {
        let parked = pending.values.filter(\.parked).count
        return (pending.count - parked, inFlight.count, parked)
    }
}
