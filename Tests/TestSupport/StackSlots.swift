import Foundation
import Synchronization

/// How many whole stacks (PostgreSQL, a broker, every service, the gateway)
/// this test process runs at once: `E2E_MAX_STACKS`, default 4.
///
/// Each end-to-end suite starts a stack of its own, and Swift Testing starts
/// every suite at once. Twenty stacks starting together on two cores made a
/// broker take seconds to answer a metadata request, so services gave up
/// while starting and waits sized for one stack ran out; a machine half as
/// fast turned that into failures in most suites. A suite that waits for a
/// slot loses nothing: the machine was never going to run the others faster.
///
/// Slots are handed out first come, first served; a heavier run (the scale
/// demo's five services) takes more than one.
public final class StackSlots: Sendable {
    /// The process's slots, sized by `E2E_MAX_STACKS`.
    public static let shared = StackSlots(
        capacity: ProcessInfo.processInfo.environment["E2E_MAX_STACKS"].flatMap(Int.init).map { max(1, $0) } ?? 4)

    private struct Waiter {
        let weight: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var free: Int
        var waiters: [Waiter] = []
    }

    public let capacity: Int
    private let state: Mutex<State>

    public init(capacity: Int) {
        self.capacity = capacity
        state = Mutex(State(free: capacity))
    }

    /// Waits for `weight` slots (at most the capacity) and holds them until
    /// the returned hold is released, or dropped.
    public func take(_ weight: Int = 1) async -> Hold {
        let weight = min(max(1, weight), capacity)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state -> Bool in
                // Nobody overtakes an earlier waiter, or a heavy run could wait forever.
                if state.waiters.isEmpty && state.free >= weight {
                    state.free -= weight
                    return true
                }
                state.waiters.append(Waiter(weight: weight, continuation: continuation))
                return false
            }
            if granted { continuation.resume() }
        }
        return Hold(slots: self, weight: weight)
    }

    /// Runs `body` while holding `weight` slots.
    public func withSlots<T>(_ weight: Int = 1, _ body: () async throws -> T) async rethrows -> T {
        let hold = await take(weight)
        defer { hold.release() }
        return try await body()
    }

    fileprivate func give(back weight: Int) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.free += weight
            var ready: [CheckedContinuation<Void, Never>] = []
            while let first = state.waiters.first, first.weight <= state.free {
                state.free -= first.weight
                ready.append(state.waiters.removeFirst().continuation)
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Slots taken: given back once, by ``release()`` or when the last
    /// reference goes (a stack a failing test never stopped must not keep
    /// every later suite waiting).
    public final class Hold: Sendable {
        private let slots: StackSlots
        private let weight: Int
        private let released = Atomic<Bool>(false)

        fileprivate init(slots: StackSlots, weight: Int) {
            self.slots = slots
            self.weight = weight
        }

        public func release() {
            guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
            slots.give(back: weight)
        }

        deinit { release() }
    }
}
