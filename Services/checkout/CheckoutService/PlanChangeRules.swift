import Foundation
import HTTPServer
import BillingModel
import Entitlements
import Providers

/// Which of the owner's subscriptions a plan change applies to, and whether
/// it may: pure, so every refusal is tested without a server
/// (docs/plan-changes.md, "Refusals"). Each refusal changes nothing.
enum PlanChangeRules {
    /// The subscription to change to `target`, from the caller's own `subscriptions`.
    /// - Parameters:
    ///   - code: the `subscription_code` the caller named, if any.
    ///   - timings: when `target`'s provider can make a change take effect.
    /// - Throws: ``HTTPError``: 422 `plan_not_in_product_group` (no group holds
    ///   the target), 404 `subscription_not_found`, 422 `plan_change_other_group`,
    ///   409 `subscription_not_active`, 409 `plan_change_pending`, 422 `plan_unchanged`, 422 `plan_change_timing_unsupported`.
    static func subscription(
        toChange subscriptions: [SubscriptionState], to target: CatalogID, effective: PlanChange.Effective, code: String?,
        configuration: EntitlementsConfiguration?, timings: Set<PlanChange.Effective>
    ) throws(HTTPError) -> SubscriptionState {
        guard let group = configuration?.productGroup(target.provider, variantID: target.rawID) else {
            throw HTTPError(
                .unprocessableContent, "variantId \(target) is in no product group: plans change only within one (product_groups)",
                code: "plan_not_in_product_group")
        }
        let candidates = subscriptions.filter { $0.provider == target.provider && (code == nil || $0.subscriptionID == code) }
        guard !candidates.isEmpty else { throw HTTPError(.notFound, "Subscription not found", code: "subscription_not_found") }
        let inGroup = candidates.filter { configuration?.productGroup($0.provider, variantID: $0.variantID) == group }
        // A live subscription of the group first; the newest first otherwise (the reader's order).
        guard let chosen = inGroup.first(where: isLive) ?? inGroup.first else {
            throw HTTPError(
                .unprocessableContent, "The subscription's plan is not in product group \(group.name) of \(target)",
                code: "plan_change_other_group")
        }
        guard isLive(chosen) else {
            throw HTTPError(.conflict, "The subscription is cancelled or has ended; its plan cannot change", code: "subscription_not_active")
        }
        // Also on another of the group: a Paystack change ends the subscription
        // (no longer live) and the new one it made is the live one.
        guard !inGroup.contains(where: { $0.pendingVariantID != nil }) else {
            throw HTTPError(.conflict, "A plan change is already scheduled for this subscription", code: "plan_change_pending")
        }
        guard chosen.variantID != target.rawID else {
            throw HTTPError(.unprocessableContent, "The subscription is already on \(target)", code: "plan_unchanged")
        }
        guard timings.contains(effective) else {
            let offered = timings.map(\.rawValue).sorted().joined(separator: ", ")
            throw HTTPError(
                .unprocessableContent,
                "\(target.provider.rawValue) cannot change plans effective \(effective.rawValue)"
                    + (offered.isEmpty ? "" : " (it offers: \(offered))"),
                code: "plan_change_timing_unsupported")
        }
        return chosen
    }

    /// Renewing and in good standing or in a billing issue: not cancelled, not ended.
    static func isLive(_ state: SubscriptionState) -> Bool {
        !state.cancelAtPeriodEnd && !state.provider.phase(of: state.status).isEndedOrEnding && state.status != "unknown"
    }
}
