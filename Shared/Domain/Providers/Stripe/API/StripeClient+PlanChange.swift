import BillingModel
import Foundation
import HTTPClient
import JSONCodec
import Webhooks

extension StripeClient {
    /// Stripe updates the subscription item's price at once, or at the end of
    /// the period through a subscription schedule.
    public var planChangeTimings: Set<PlanChange.Effective> { [.now, .periodEnd] }

    /// Reads the subscription for its one item, then changes it: now, or at
    /// the end of the period through a subscription schedule
    /// (``scheduleChange(_:_:to:)``).
    ///
    /// Now is `POST /v1/subscriptions/{id}` with `items[0][id]`,
    /// `items[0][price]` and `proration_behavior`: `always_invoice` for
    /// `prorate` (the unused time is credited and the difference charged
    /// now), `none` for `none`. A change of interval (monthly to annual)
    /// makes Stripe start a new period and invoice at once either way.
    public func changePlan(subscriptionID id: String, _ change: PlanChange) async throws(ProviderError) -> ProviderSubscription {
        let operation = "changePlan"
        try checkID(id, operation, what: "subscription id")
        try checkID(change.variantID, operation, what: "price id")
        let current = try await send(StripeRequest(operation: operation, method: .get, path: "/v1/subscriptions/\(id)"))
        guard let parsed = try? StripeSubscription(current.json), let itemID = parsed.itemID else {
            throw failure(operation, .decoding, "subscription has no item")
        }
        guard parsed.scheduleID == nil else {
            throw ProviderError(
                provider: provider, operation: operation, kind: .validation, message: "a change is already scheduled", code: "plan_change_pending")
        }
        if change.effective == .periodEnd { return try await scheduleChange(parsed, operation, to: change.variantID) }
        let form = [
            StripeField("items[0][id]", .string(itemID)), StripeField("items[0][price]", .string(change.variantID)),
            StripeField("proration_behavior", .string(change.proration == .prorate ? "always_invoice" : "none")),
        ]
        // One idempotency key for every attempt: a retried update charges once.
        let request = StripeRequest(
            operation: operation, method: .post, path: "/v1/subscriptions/\(id)", form: form, idempotencyKey: try randomKey(operation))
        return try subscription(operation, try await send(request))
    }

    /// `POST /v1/subscription_schedules` with `from_subscription`, then the
    /// schedule's two phases: the current price until the period ends, the
    /// new one from then (`end_behavior=release`: afterwards the subscription
    /// goes on by itself). Nothing is charged now; the new price is charged
    /// at the renewal. Should the second call fail, the schedule is released
    /// again, so no half-made schedule blocks a later change.
    func scheduleChange(_ current: StripeSubscription, _ operation: String, to price: String) async throws(ProviderError) -> ProviderSubscription {
        guard let currentPrice = current.priceID, let start = current.currentPeriodStart, let end = current.currentPeriodEnd else {
            throw failure(operation, .decoding, "subscription has no current period")
        }
        let created = try await send(
            StripeRequest(
                operation: operation, method: .post, path: "/v1/subscription_schedules",
                form: [StripeField("from_subscription", .string(current.id))], idempotencyKey: try randomKey(operation)))
        guard let scheduleID = created.json["id"]?.string, ProviderIDs.isSafe(scheduleID) else {
            throw failure(operation, .decoding, "answer is not a subscription schedule")
        }
        let seconds = { (date: Date) in StripeParameter.string(String(Int64(date.timeIntervalSince1970))) }
        let phases = [
            StripeField("end_behavior", .string("release")),
            StripeField("phases[0][items][0][price]", .string(currentPrice)), StripeField("phases[0][items][0][quantity]", .string("1")),
            StripeField("phases[0][start_date]", seconds(start)), StripeField("phases[0][end_date]", seconds(end)),
            StripeField("phases[1][items][0][price]", .string(price)), StripeField("phases[1][items][0][quantity]", .string("1")),
        ]
        do {
            _ = try await send(
                StripeRequest(
                    operation: operation, method: .post, path: "/v1/subscription_schedules/\(scheduleID)", form: phases,
                    idempotencyKey: try randomKey(operation)))
        } catch {
            _ = try? await send(
                StripeRequest(
                    operation: operation, method: .post, path: "/v1/subscription_schedules/\(scheduleID)/release",
                    idempotencyKey: try randomKey(operation)))
            throw error
        }
        var result = StripeSubscriptionMapper.subscription(current, provider: provider)
        result.pendingVariantID = price
        result.pendingChangeAt = end
        return result
    }
}
