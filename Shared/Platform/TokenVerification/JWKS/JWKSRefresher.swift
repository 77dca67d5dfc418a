import ServiceRuntime

/// The background service that loads every ``JWKSKeySet`` at start-up and
/// keeps it fresh: fetches when a set was never loaded, again after
/// ``JWKSPolicy/refreshFraction`` of its time-to-live, and after a failure
/// along ``JWKSPolicy/failureBackoff`` (the last good keys stay in use). A
/// host that is down at start-up delays nothing but its own keys.
public struct JWKSRefresher: Service {
    public let name = "jwks-refresher"
    /// The sets kept fresh, one loop each.
    public let keySets: [JWKSKeySet]

    public init(keySets: [JWKSKeySet]) {
        self.keySets = keySets
    }

    public func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            for keySet in keySets {
                group.addTask { await Self.keepFresh(keySet) }
            }
        }
        throw CancellationError()
    }

    static func keepFresh(_ keySet: JWKSKeySet) async {
        var justFetched = false
        while !Task.isCancelled {
            var wait = keySet.secondsUntilRefresh()
            // A policy with zero times must not turn this into a busy loop.
            if justFetched { wait = max(wait, 1) }
            justFetched = false
            if wait > 0 {
                do {
                    // Wake at least hourly, so a set refreshed meanwhile is looked at again.
                    try await Task.sleep(for: .seconds(min(wait, 3600)))
                } catch {
                    return
                }
                continue
            }
            await keySet.refresh()
            justFetched = true
        }
    }
}
