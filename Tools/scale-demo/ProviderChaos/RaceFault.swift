import Foundation

/// The `race` fault of the provider phase: recent subscriptions are
/// cancelled and resumed at the provider in quick succession, all at once
/// (each ends cancelled or active, alternately), while one projector is
/// SIGKILLed and a replacement started, so their webhooks race each other
/// and the rebalance that hands their partitions to another projector.
struct RaceFault: Sendable {
    let control: SandboxControl
    let ledger: PurchaseLedger
    let stateDirectory: String
    let stackScript: String
    /// How many subscriptions take part.
    let count: Int
    let now: @Sendable () -> Double

    /// Runs the race; returns what happened, for the fault's title.
    func run() async throws -> String {
        // Active ones bought a moment ago: the driver cancels every third right after buying it.
        let cutoff = now() - 2
        let chosen = ledger.purchases.filter { $0.status == "active" && $0.createdAt < cutoff }.suffix(count)
        guard !chosen.isEmpty else { throw ChaosActions.Failure(description: "no active purchase to race") }
        let (victim, pid, replacement) = try await Self.raceWhileReplacingAProjector(
            Array(chosen), stateDirectory: stateDirectory, stackScript: stackScript
        ) { [control, ledger, now] purchase, action in
            let status = try await control.change(purchase.provider, id: purchase.id, action: action)
            ledger.changed(purchase.provider, id: purchase.id, status: status, at: now())
        } failed: { [ledger] purchase, action, error in
            ledger.failed("race \(action) \(purchase.provider.rawValue) \(purchase.id): \(error)")
        }
        return "\(chosen.count) subscriptions cancelled and resumed at once while subscription-projector-\(victim) "
            + "(pid \(pid)) was SIGKILLed and \(replacement) started"
    }

    /// Changes every one of `items` at once, odd ones cancelled, resumed and
    /// cancelled again, even ones cancelled and resumed (both directions
    /// race), while the highest-numbered live projector is SIGKILLed and a
    /// replacement started. An item whose change fails is told to `failed`
    /// and changed no further.
    /// - Returns: the killed projector's number and pid, and the replacement's name.
    static func raceWhileReplacingAProjector<Item: Sendable>(
        _ items: [Item], stateDirectory: String, stackScript: String,
        change: @escaping @Sendable (Item, String) async throws -> Void,
        failed: @escaping @Sendable (Item, String, any Error) -> Void
    ) async throws -> (victim: Int, pid: pid_t, replacement: String) {
        let failover = ProjectorFailover(stateDirectory: stateDirectory, stackScript: stackScript, victim: try liveProjector(in: stateDirectory))
        let changes = Task {
            await withTaskGroup(of: Void.self) { group in
                for (index, item) in items.enumerated() {
                    let actions = index % 2 == 1 ? ["cancel", "resume", "cancel"] : ["cancel", "resume"]
                    group.addTask {
                        for action in actions {
                            do {
                                try await change(item, action)
                            } catch {
                                failed(item, action, error)
                                return
                            }
                        }
                    }
                }
            }
        }
        let pid = try failover.kill()
        let replacement = try await failover.startReplacement()
        await changes.value
        return (failover.victim, pid, String(replacement.split(separator: " ").first ?? "a replacement"))
    }

    /// The highest-numbered projector that still runs (its pid file is there).
    static func liveProjector(in stateDirectory: String) throws -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "\(stateDirectory)/pids")) ?? []
        let numbers = names.compactMap { name -> Int? in
            guard name.hasPrefix("subscription-projector-"), name.hasSuffix(".pid") else { return nil }
            return Int(name.dropFirst("subscription-projector-".count).dropLast(".pid".count))
        }
        guard let number = numbers.max() else { throw ChaosActions.Failure(description: "no projector is running") }
        return number
    }
}
