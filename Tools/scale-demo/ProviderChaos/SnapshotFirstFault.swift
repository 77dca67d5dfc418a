import Foundation
import HTTPClient
import Postgres

/// The `snapshotfirst` fault of the provider phase: a purchase whose
/// reconciler snapshot lands before its webhooks, while another user's
/// checkout competes for the same email.
///
/// User A and user B (same verified email) each open a Lemon Squeezy
/// checkout through the API; the sandbox is told to hold back (drop) what A's
/// checkout produces; A pays. Once the reconciler's sweep has projected the
/// subscription from its snapshot, the held webhooks (the sandbox's own signed
/// deliveries, from its log) are delivered late through the gateway, as a
/// provider's late retry would be. The purchase must end owned by A (the user
/// whose checkout produced it), never by B, in the sandbox's status.
struct SnapshotFirstFault: Sendable {
    let control: SandboxControl
    let ledger: PurchaseLedger
    let pool: PostgresPool
    let stack: StackEnvironment
    let timeout: Duration
    let now: @Sendable () -> Double

    struct Failure: Error, CustomStringConvertible { let description: String }

    func run() async throws -> String {
        let api = StorefrontAPI(client: control.client, stack: stack)
        let gateway = api.gateway
        let run = String(UUID().uuidString.lowercased().prefix(8))
        let email = "chaos-\(run)@example.com"
        let (userA, userB) = ("chaos-a-\(run)", "chaos-b-\(run)")
        let (productID, variantID) = try await api.subscriptionProduct(.lemonSqueezy)
        let checkoutA = try await api.createCheckout(user: userA, email: email, product: productID, variant: variantID)
        // The competing checkout: another user, the same email, never paid.
        _ = try await api.createCheckout(user: userB, email: email, product: productID, variant: variantID)

        try await control.setFaults(["drop_checkouts": ["lemonsqueezy:\(checkoutA)"]])
        let paidAt = now()
        let subscription: String
        do {
            subscription = try await control.pay(.lemonSqueezy, checkoutID: checkoutA)
        } catch {
            try? await control.setFaults([:])
            throw error
        }
        ledger.bought(Purchase(provider: .lemonSqueezy, id: subscription, createdAt: paidAt, status: "active", changedAt: paidAt))
        let snapshotAfter = await waitForRow(subscription)
        try await control.setFaults([:])
        guard let snapshotAfter else {
            throw Failure(description: "no snapshot of subscription \(subscription) was projected within \(timeout)")
        }
        let held = try await control.droppedDeliveries()
        for delivery in held {
            let response = try await control.client.post(gateway + "/api/webhooks/lemonsqueezy", headers: delivery.headers, body: delivery.body)
            guard response.isSuccess else {
                throw Failure(description: "a held \(delivery.event) webhook was answered \(response.status) when delivered late")
            }
        }
        let owner = await waitForOwner(subscription, expected: userA)
        guard owner == userA else {
            let who = owner == userB ? "the competing user (\(userB))" : (owner.map { "\($0)" } ?? "nobody")
            throw Failure(description: "subscription \(subscription) is owned by \(who), not by \(userA) whose checkout produced it")
        }
        return "snapshot before its webhooks (projected from the sweep \(String(format: "%.1f", snapshotAfter - paidAt)) s after payment, "
            + "then \(held.count) held webhooks delivered), another user's checkout competing for the same email; owned by the buyer"
    }

    /// Waits for the subscription's row; returns when it appeared (seconds since the start), or nil.
    private func waitForRow(_ id: String) async -> Double? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let rows = try? await pool.query("SELECT 1 FROM subscriptions WHERE provider = 'lemonsqueezy' AND subscription_id = \(id)")
            if let rows, !rows.isEmpty { return now() }
            try? await Task.sleep(for: .milliseconds(250))
        }
        return nil
    }

    /// Waits for the row's owner to be `expected`; returns the last owner seen.
    private func waitForOwner(_ id: String, expected: String) async -> String? {
        let deadline = ContinuousClock.now + timeout
        var owner: String?
        while ContinuousClock.now < deadline {
            let rows = try? await pool.query(
                "SELECT coalesce(app_user_id, '') FROM subscriptions WHERE provider = 'lemonsqueezy' AND subscription_id = \(id)")
            if let value = try? rows?.first?.decode(column: 0, as: String.self), !value.isEmpty { owner = value }
            if owner == expected { return owner }
            try? await Task.sleep(for: .milliseconds(250))
        }
        return owner
    }
}
