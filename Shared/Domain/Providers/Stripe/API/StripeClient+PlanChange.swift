import BillingModel
import HTTPClient
import Webhooks

extension StripeClient {
    /// Stripe updates the subscription item's price at once. A change at
    /// period end needs a subscription schedule, which this client does not
    /// write yet (docs/plan-changes.md), so it is refused before any call.
    public var planChangeTimings: Set<PlanChange.Effective> { [.now] }

    /// Reads the subscription for its one item, then `POST /v1/subscriptions/{id}`
    /// with `items[0][id]`, `items[0][price]` and `proration_behavior`:
    /// `always_invoice` for `prorate` (the unused time is credited and the
    /// difference charged now), `none` for `none`. A change of interval
    /// (monthly to annual) makes Stripe start a new period and invoice at once either way.
    public func changePlan(subscriptionID id: String, _ change: PlanChange) async throws(ProviderError) -> ProviderSubscription {
        let operation = "changePlan"
        try checkID(id, operation, what: "subscription id")
        try checkID(change.variantID, operation, what: "price id")
        guard change.effective == .now else { throw failure(operation, .validation, "scheduled plan changes are not supported") }
        let current = try await send(StripeRequest(operation: operation, method: .get, path: "/v1/subscriptions/\(id)"))
        guard let parsed = try? StripeSubscription(current.json), let itemID = parsed.itemID else {
            throw failure(operation, .decoding, "subscription has no item")
        }
        let form = [
            StripeField("items[0][id]", .string(itemID)), StripeField("items[0][price]", .string(change.variantID)),
            StripeField("proration_behavior", .string(change.proration == .prorate ? "always_invoice" : "none")),
        ]
        // One idempotency key for every attempt: a retried update charges once.
        let request = StripeRequest(
            operation: operation, method: .post, path: "/v1/subscriptions/\(id)", form: form, idempotencyKey: try randomKey(operation))
        return try subscription(operation, try await send(request))
    }
}
