import Foundation

extension StorefrontClient {
    /// Where the live stream's loop is: the cursor to send and the failures in a row.
    struct LiveChangesPosition: Sendable {
        var cursor: String?
        var failures = 0
    }

    /// Starts the live stream's loop when something needs it and stops it
    /// when nothing does any more: a purchase wait, or an open entitlement stream.
    func liveChangesNeeded() {
        let needed = options.liveChanges && (!waiting.isEmpty || !observers.isEmpty || !snapshotObservers.isEmpty)
        if needed, liveChangesTask == nil {
            log(.debug, "entitlements: listening to the live stream")
            // The client is held only while one poll runs, so dropping it ends the loop.
            liveChangesTask = Task { [weak self] in
                var position = LiveChangesPosition()
                while !Task.isCancelled {
                    guard let self, let next = await self.pollLiveChanges(from: position) else { return }
                    position = next
                }
            }
        } else if !needed, let task = liveChangesTask {
            task.cancel()
            liveChangesTask = nil
            liveChangesConnected = false
        }
    }

    /// One poll of the stream. A reported change wakes the purchase waits
    /// (they read the status at once) and refreshes the observed
    /// entitlements. A failure marks the stream down, which sends the
    /// purchase waits back to their short polling, and pauses before the next try.
    /// - Returns: where the next poll starts; nil once cancelled.
    private func pollLiveChanges(from position: LiveChangesPosition) async -> LiveChangesPosition? {
        var position = position
        // Optimistic from the first poll on: a wait started now pauses long, and
        // the first failure (within a round trip) wakes it back to short polls.
        if position.failures == 0 { liveChangesConnected = true }
        do throws(StorefrontError) {
            let wait = options.requestTimeout - .seconds(5)
            let reply = try await send("GET", LiveChangesAnswer.path(after: position.cursor, wait: wait))
            let answer = try LiveChangesAnswer(data: reply.data)
            position.failures = 0
            position.cursor = answer.reset ? nil : answer.cursor
            if answer.reportsChange { await changeReported(answer) }
        } catch {
            if error == .cancelled || Task.isCancelled { return nil }
            position.failures += 1
            if liveChangesConnected {
                liveChangesConnected = false
                log(.info, "entitlements: live stream unavailable (\(error)); polling instead")
                wakeAll()
            }
            try? await Task.sleep(for: Self.liveChangesRetryDelay(after: error, failures: position.failures))
        }
        return Task.isCancelled ? nil : position
    }

    /// What a reported change sets off.
    private func changeReported(_ answer: LiveChangesAnswer) async {
        log(.debug, "entitlements: live change \(answer.reset ? "(missed some: rereading)" : answer.eventTypes.joined(separator: ", "))")
        entitlementsNeedReload = true
        wakeAll()
        if !observers.isEmpty || !snapshotObservers.isEmpty { await refresh(reason: "live change") }
    }

    /// The pause before the stream is tried again: doubling from 1 s to a
    /// minute, or ten minutes when the server has no stream at all (404, an
    /// older backend), so it is not asked about it every minute.
    static func liveChangesRetryDelay(after error: StorefrontError, failures: Int) -> Duration {
        if case .notFound = error { return .seconds(600) }
        return .seconds(min(60, 1 << min(failures - 1, 6)))
    }
}
