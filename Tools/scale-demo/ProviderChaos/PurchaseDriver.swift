import Foundation

/// Buys subscriptions in the sandbox at a steady pace, the two providers in
/// turn, and cancels every third one right after it was bought, so each
/// subscription gets a few webhooks whose last one moves its status. The
/// sandbox delivers them itself, on each provider's retry schedule.
struct PurchaseDriver: Sendable {
    let control: SandboxControl
    let ledger: PurchaseLedger
    /// Purchases started per second.
    let rate: Double
    /// The run's clock (seconds since its start).
    let now: @Sendable () -> Double

    /// Runs until the task is cancelled.
    func run() async {
        let clock = ContinuousClock()
        let interval = Duration.milliseconds(Int64((1000 / rate).rounded()))
        var next = clock.now
        var number = 0
        while !Task.isCancelled {
            let provider = SandboxControl.Provider.allCases[number % SandboxControl.Provider.allCases.count]
            await buy(provider, cancelling: number % 3 == 2)
            number += 1
            next += interval
            // Behind schedule (a slow sandbox): carry on at once rather than burst later.
            if next < clock.now { next = clock.now }
            try? await Task.sleep(until: next, clock: clock)
        }
    }

    private func buy(_ provider: SandboxControl.Provider, cancelling: Bool) async {
        do {
            let (id, status) = try await control.purchase(provider)
            let time = now()
            ledger.bought(Purchase(provider: provider, id: id, createdAt: time, status: status, changedAt: time))
            guard cancelling else { return }
            let cancelled = try await control.cancel(provider, id: id)
            ledger.changed(provider, id: id, status: cancelled, at: now())
        } catch {
            ledger.failed("\(provider.rawValue): \(error)")
        }
    }
}
