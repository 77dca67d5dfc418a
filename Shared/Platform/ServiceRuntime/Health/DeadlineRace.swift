import Synchronization

/// How an operation raced against its deadline ended.
public enum DeadlineOutcome<Value: Sendable>: Sendable {
    case finished(Result<Value, any Error>)
    case timedOut
    case cancelled
}

/// Runs `operation` in its own task and returns at its deadline even if the
/// operation ignores cancellation: a structured task group would wait for
/// the hung child, which is exactly what a health probe must not do (nor a
/// webhook answer waiting on a broker publish that cannot be withdrawn).
///
/// On timeout (or when the caller is cancelled) the operation's task is
/// cancelled and abandoned; `abandoned` is raised by one until it finishes,
/// so callers can refuse to pile up more runs of something that hangs.
public func raceAgainstDeadline<Value: Sendable>(
    _ timeout: Duration,
    abandoned: AbandonedRuns? = nil,
    _ operation: @escaping @Sendable () async throws -> Value
) async -> DeadlineOutcome<Value> {
    let first = FirstOutcome<Value>()
    let work = Task {
        let result: Result<Value, any Error>
        do { result = .success(try await operation()) } catch { result = .failure(error) }
        if !first.deliver(.finished(result)) { abandoned?.count.wrappingSubtract(1, ordering: .relaxed) }
    }
    let timer = Task {
        do {
            try await Task.sleep(for: timeout)
            first.deliver(.timedOut)
        } catch {}
    }
    let outcome = await withTaskCancellationHandler {
        await first.wait()
    } onCancel: {
        first.deliver(.cancelled)
    }
    timer.cancel()
    if case .finished = outcome { return outcome }
    // Counting up here and down in the abandoned task (in either order)
    // leaves the count at zero once the task has really finished.
    abandoned?.count.wrappingAdd(1, ordering: .relaxed)
    work.cancel()
    return outcome
}

/// How many runs of an operation were abandoned at their deadline and
/// have not finished yet.
public final class AbandonedRuns: Sendable {
    let count = Atomic<Int>(0)

    public init() {}

    /// Whether an abandoned run is still going.
    public var any: Bool { count.load(ordering: .relaxed) > 0 }
}

/// Keeps the first of several outcomes and hands it to one waiter.
final class FirstOutcome<Value: Sendable>: Sendable {
    private struct State {
        var outcome: DeadlineOutcome<Value>?
        var waiter: CheckedContinuation<DeadlineOutcome<Value>, Never>?
    }

    private let state = Mutex(State())

    /// Records `outcome` if none was recorded yet; returns whether it was first.
    @discardableResult
    func deliver(_ outcome: DeadlineOutcome<Value>) -> Bool {
        let (won, waiter) = state.withLock { state -> (Bool, CheckedContinuation<DeadlineOutcome<Value>, Never>?) in
            guard state.outcome == nil else { return (false, nil) }
            state.outcome = outcome
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(returning: outcome)
        return won
    }

    /// Suspends until an outcome is delivered (returns at once if it already was).
    func wait() async -> DeadlineOutcome<Value> {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> DeadlineOutcome<Value>? in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
