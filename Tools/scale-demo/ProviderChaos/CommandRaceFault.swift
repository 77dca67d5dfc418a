import Foundation
import Postgres

/// The `commandrace` fault of the provider phase: Storefront's own commands
/// racing the providers' webhooks on two projectors' worth of rebalance.
///
/// Users buy subscriptions through Storefront's API (create-checkout, paid in
/// the sandbox), Lemon Squeezy and Paystack in turn; once each is projected
/// and owned, every owner cancels and resumes through the API at once, so the
/// checkout's `cancel_requested`/`resume_requested` commands (with what the
/// provider answered), the providers' webhooks and the reconciler's fetches of
/// the same subscriptions all race, while a projector is SIGKILLed and a
/// replacement started. Each must end in the status the provider last answered.
struct CommandRaceFault: Sendable {
    let control: SandboxControl
    let api: StorefrontAPI
    let ledger: PurchaseLedger
    let pool: PostgresPool
    let stateDirectory: String
    let stackScript: String
    /// How many subscriptions (and users) take part.
    let count: Int
    /// Longest wait for the purchases to be projected and owned before the race.
    let timeout: Duration
    let now: @Sendable () -> Double

    struct Failure: Error, CustomStringConvertible { let description: String }

    private struct Owner: Sendable {
        let provider: SandboxControl.Provider
        let subscription: String
        let user: String
        var email: String { "\(user)@example.com" }
    }

    func run() async throws -> String {
        let run = String(UUID().uuidString.lowercased().prefix(8))
        var products: [SandboxControl.Provider: (product: String, variant: String)] = [:]
        var owners: [Owner] = []
        for index in 0..<count {
            let provider: SandboxControl.Provider = index % 2 == 0 ? .lemonSqueezy : .paystack
            if products[provider] == nil { products[provider] = try await api.subscriptionProduct(provider) }
            guard let product = products[provider] else { continue }
            let user = "chaos-cmd-\(run)-\(index)"
            let checkout = try await api.createCheckout(user: user, email: "\(user)@example.com", product: product.product, variant: product.variant)
            let paidAt = now()
            let subscription = try await control.pay(provider, checkoutID: checkout)
            ledger.bought(Purchase(provider: provider, id: subscription, createdAt: paidAt, status: "active", changedAt: paidAt))
            owners.append(Owner(provider: provider, subscription: subscription, user: user))
        }
        try await waitUntilOwned(owners)

        let (victim, pid, replacement) = try await RaceFault.raceWhileReplacingAProjector(
            owners, stateDirectory: stateDirectory, stackScript: stackScript
        ) { [api, ledger, now] owner, action in
            let status = try await api.change(action, subscription: owner.subscription, user: owner.user, email: owner.email)
            ledger.changed(owner.provider, id: owner.subscription, status: status, at: now())
        } failed: { [ledger] owner, action, error in
            ledger.failed("command race \(action) \(owner.provider.rawValue) \(owner.subscription): \(error)")
        }
        return "\(owners.count) subscriptions bought through the API, then cancelled and resumed through it at once (the checkout's "
            + "commands racing the webhooks) while subscription-projector-\(victim) (pid \(pid)) was SIGKILLed and \(replacement) started"
    }

    /// Waits until every purchase has its row, owned by its buyer: the API
    /// answers cancel and resume only for what the projection says the caller owns.
    private func waitUntilOwned(_ owners: [Owner]) async throws {
        let deadline = ContinuousClock.now + timeout
        var missing = owners.map { "\($0.provider.rawValue):\($0.subscription)" }
        while ContinuousClock.now < deadline {
            var owned: [String: String] = [:]
            for row in (try? await pool.query("SELECT provider, subscription_id, coalesce(app_user_id, '') FROM subscriptions")) ?? [] {
                if let (provider, id, user) = try? row.decode((String, String, String).self) { owned["\(provider):\(id)"] = user }
            }
            missing = owners.filter { owned["\($0.provider.rawValue):\($0.subscription)"] != $0.user }
                .map { "\($0.provider.rawValue):\($0.subscription)" }
            if missing.isEmpty { return }
            try? await Task.sleep(for: .milliseconds(250))
        }
        throw Failure(description: "not projected and owned by their buyers within \(timeout): \(missing.joined(separator: ", "))")
    }
}
