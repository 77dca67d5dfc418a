import Synchronization

/// One subscription the provider phase bought in the sandbox, and the status
/// the sandbox last reported for it (what the projection must end up with).
struct Purchase: Sendable {
    let provider: SandboxControl.Provider
    let id: String
    /// Seconds since the run's start when the sandbox made it.
    let createdAt: Double
    var status: String
    /// When the sandbox last changed it (the purchase, or its cancel).
    var changedAt: Double
}

/// What the purchase driver did, read by the recovery wait and the report.
final class PurchaseLedger: Sendable {
    private struct State {
        var purchases: [Purchase] = []
        var index: [String: Int] = [:]
        var failures: [String] = []
        var failureCount = 0
    }
    private let state = Mutex(State())

    var purchases: [Purchase] { state.withLock { $0.purchases } }
    var failures: [String] { state.withLock { $0.failures } }
    var failureCount: Int { state.withLock { $0.failureCount } }

    func bought(_ purchase: Purchase) {
        state.withLock {
            $0.index["\(purchase.provider.rawValue):\(purchase.id)"] = $0.purchases.count
            $0.purchases.append(purchase)
        }
    }

    func changed(_ provider: SandboxControl.Provider, id: String, status: String, at time: Double) {
        state.withLock {
            guard let position = $0.index["\(provider.rawValue):\(id)"] else { return }
            $0.purchases[position].status = status
            $0.purchases[position].changedAt = time
        }
    }

    /// Keeps the first few failures' texts, counts all of them.
    func failed(_ text: String) {
        state.withLock {
            $0.failureCount += 1
            if $0.failures.count < 5 { $0.failures.append(text) }
        }
    }
}
