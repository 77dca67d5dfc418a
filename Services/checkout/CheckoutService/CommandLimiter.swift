import Foundation
import Synchronization

/// At most one command per key per ``interval``, in this process's memory.
///
/// Reads publish commands on the caller's behalf (a refresh of an overdue
/// subscription, a claim of an unowned purchase); while the projector has
/// not applied the first, every later read would publish the same command
/// again. Each checkout replica keeps its own limiter, so N replicas send at
/// most N per interval; the consumers coalesce or deduplicate the rest.
/// It remembers at most ``capacity`` keys: when full, entries older than the
/// interval are forgotten, and if it is still full the command is refused
/// (`full`: the sweep or a later read covers it) rather than growing without bound.
final class CommandLimiter: Sendable {
    enum Decision: Equatable { case admitted, tooSoon, full }

    let interval: TimeInterval
    let capacity: Int
    private let lastAdmitted = Mutex<[String: Date]>([:])

    /// Default: 5 minutes, 10,000 keys.
    init(interval: TimeInterval = 300, capacity: Int = 10_000) {
        self.interval = interval
        self.capacity = capacity
    }

    /// Admits `key` at `now` unless it was admitted less than ``interval`` ago.
    func admit(_ key: String, at now: Date) -> Decision {
        lastAdmitted.withLock { last in
            func isRecent(_ at: Date) -> Bool {
                let age = now.timeIntervalSince(at)
                return age >= 0 && age < interval
            }
            if let previous = last[key] {
                if isRecent(previous) { return .tooSoon }
            } else if last.count >= capacity {
                last = last.filter { isRecent($0.value) }
                if last.count >= capacity { return .full }
            }
            last[key] = now
            return .admitted
        }
    }

    /// Forgets `key`, so the next ``admit(_:at:)`` is admitted: for a command
    /// that was admitted but could not be published.
    func release(_ key: String) {
        _ = lastAdmitted.withLock { $0.removeValue(forKey: key) }
    }

    /// Keys remembered now.
    var count: Int { lastAdmitted.withLock { $0.count } }
}
