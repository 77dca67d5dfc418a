import Foundation
import Synchronization

/// Buys subscriptions in the sandbox at a steady pace, the two providers in
/// turn, and cancels every third one right after it was bought, so each
/// subscription gets a few webhooks whose last one moves its status. The
/// sandbox delivers them itself, on each provider's retry schedule.
final class PurchaseDriver: Sendable {
    let control: SandboxControl
    let ledger: PurchaseLedger
    /// Purchases started per second.
    let rate: Double
    /// The run's clock (seconds since its start).
    let now: @Sendable () -> Double
    /// Set by ``stop()``: no purchase starts after it.
    private let stopping = Atomic<Bool>(false)

    init(control: SandboxControl, ledger: PurchaseLedger, rate: Double, now: @escaping @Sendable () -> Double) {
        self.control = control
        self.ledger = ledger
        self.rate = rate
        self.now = now
    }

    /// Ends ``run()`` after the purchase (and its cancel) in flight. Not task
    /// cancellation: that would cut a request short, record a purchase the
    /// sandbox may have made as failed, or leave a bought one uncancelled.
    func stop() { stopping.store(true, ordering: .relaxed) }

    /// Runs until ``stop()``; the wait between purchases ends early then.
    func run() async {
        let clock = ContinuousClock()
        let interval = Duration.milliseconds(Int64((1000 / rate).rounded()))
        var next = clock.now
        var number = 0
        while !stopping.load(ordering: .relaxed) {
            let provider = SandboxControl.Provider.allCases[number % SandboxControl.Provider.allCases.count]
            await buy(provider, cancelling: number % 3 == 2)
            number += 1
            next += interval
            // Behind schedule (a slow sandbox): carry on at once rather than burst later.
            if next < clock.now { next = clock.now }
            while clock.now < next, !stopping.load(ordering: .relaxed) {
                try? await Task.sleep(until: min(next, clock.now + .milliseconds(50)), clock: clock)
            }
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
