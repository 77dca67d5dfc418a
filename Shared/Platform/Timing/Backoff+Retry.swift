extension Backoff {
    /// Runs `attempt` until it succeeds, waiting this schedule's delay after
    /// each failure: the start-up steps (migrations, topic creation) that must
    /// outlast a dependency that is not up yet, instead of crash-looping.
    ///
    /// - Parameters:
    ///   - shouldContinue: checked before each attempt; once false, gives up.
    ///     Default: until the calling task is cancelled.
    ///   - wait: how a delay is waited out (default `Task.sleep`; a caller that
    ///     must wake early on shutdown passes its own).
    ///   - failed: told each failure, the failures so far and the delay before
    ///     the next attempt (to log it).
    ///   - attempt: the step.
    /// - Returns: whether `attempt` succeeded; `false` when given up.
    public func retry(
        while shouldContinue: () -> Bool = { !Task.isCancelled },
        wait: (Duration) async -> Void = { try? await Task.sleep(for: $0) },
        failed: (_ error: any Error, _ failures: Int, _ delay: Duration) -> Void,
        _ attempt: () async throws -> Void
    ) async -> Bool {
        var counter = BackoffCounter(self)
        while shouldContinue() {
            do {
                try await attempt()
                return true
            } catch {
                let delay = counter.failed()
                failed(error, counter.failures, delay)
                await wait(delay)
            }
        }
        return false
    }
}
