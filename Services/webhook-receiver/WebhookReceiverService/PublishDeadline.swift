import Synchronization

/// How a publish raced against its deadline ended.
enum DeadlineOutcome<Value: Sendable>: Sendable {
    case finished(Result<Value, any Error>)
    case timedOut
    case cancelled
}

/// Runs `operation` in its own task and returns by `timeout` even when the
/// operation keeps going: `KafkaProducer.sendAndAwait` cannot withdraw an
/// enqueued message, so it ignores cancellation and waits for librdkafka's
/// own verdict. A task group would wait for it; this abandons it instead.
func raceAgainstDeadline<Value: Sendable>(
    _ timeout: Duration, _ operation: @escaping @Sendable () async throws -> Value
) async -> DeadlineOutcome<Value> {
    let first = FirstOutcome<Value>()
    Task {
        let result: Result<Value, any Error>
        do { result = .success(try await operation()) } catch { result = .failure(error) }
        first.deliver(.finished(result))
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
    return outcome
}

/// Keeps the first of several outcomes and hands it to the one waiter.
final class FirstOutcome<Value: Sendable>: Sendable {
    private struct State {
        var outcome: DeadlineOutcome<Value>?
        var waiter: CheckedContinuation<DeadlineOutcome<Value>, Never>?
    }

    private let state = Mutex(State())

    /// Records `outcome` unless one was recorded already.
    func deliver(_ outcome: DeadlineOutcome<Value>) {
        let waiter = state.withLock { state -> CheckedContinuation<DeadlineOutcome<Value>, Never>? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: outcome)
    }

    /// Suspends until an outcome is delivered (at once if one was).
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
