import Foundation
import BillingModel

extension SubscriptionFold {
    /// Paystack sends the state change as the event itself: `subscription.create`
    /// (active), `subscription.not_renew` (non-renewing until the period ends),
    /// `subscription.disable` (complete or cancelled), `invoice.payment_failed`
    /// (attention), and a renewal `charge.success` that clears attention. A
    /// provider fetch (``BillingEventKind/subscriptionObserved``) says the
    /// status itself, and nothing else can: Paystack's own word.
    static func applyPaystack(_ event: BillingEvent, to state: inout SubscriptionState) {
        overwrite(&state.productID, event.productID)
        overwrite(&state.variantID, event.variantID)
        overwrite(&state.planName, event.planName)
        if let next = event.nextPaymentDate { state.renewsAt = next }
        // Paystack state changes are ordered by receipt, so a late delivery
        // sorts after what really came later: a webhook never revives a
        // subscription that a later one ended (only Paystack's own word, a
        // fetch, or a confirmed resume can).
        let ended = paystackEnded.contains(state.status)
        switch event.kind {
        case .subscriptionCreated:
            if state.status == "unknown" { state.status = event.status ?? "active" }
        case .subscriptionNotRenewing:
            guard !ended else { break }
            state.status = "non-renewing"
            state.cancelAtPeriodEnd = true
            state.endsAt = event.nextPaymentDate ?? state.renewsAt
        case .subscriptionDisabled:
            state.status = event.status ?? "cancelled"
            state.endsAt = event.orderingTimestamp ?? state.endsAt
        case .paymentFailed:
            if ["active", "attention", "unknown"].contains(state.status) { state.status = "attention" }
        case .paymentSucceeded, .paymentRecovered:
            if state.status == "attention" || state.status == "unknown" { state.status = "active" }
        case .subscriptionResumed:
            state.status = "active"
            state.cancelAtPeriodEnd = false
            state.endsAt = nil
        case .subscriptionObserved:
            overwrite(&state.status, event.status)
            state.cancelAtPeriodEnd = event.cancelled ?? (state.status == "non-renewing")
            switch state.status {
            case "non-renewing": state.endsAt = event.endsAt ?? event.nextPaymentDate ?? state.renewsAt
            case "cancelled", "complete", "completed": state.endsAt = event.endsAt ?? state.endsAt ?? event.orderingTimestamp
            default: state.endsAt = nil
            }
            if let renews = event.renewsAt { state.renewsAt = renews }
        default:
            break
        }
        // `subscription.not_renew` carries `next_payment_date: null`: its end
        // is the period end another event names. Received before the
        // subscription's `subscription.create` (webhooks of one purchase
        // travel under different keys), it finds no period yet; the end is
        // filled once one is known, so any arrival order gives the same row.
        if state.status == "non-renewing", state.endsAt == nil { state.endsAt = state.renewsAt }
    }

    /// Paystack statuses after which only a fetch or a resume changes the status.
    static let paystackEnded: Set<String> = ["cancelled", "complete", "completed"]
}
