import Foundation
import BillingModel

extension SubscriptionFold {
    /// Lemon Squeezy's subscription events carry the whole subscription
    /// object; its payment events carry an invoice, whose status is not the
    /// subscription's and must not overwrite it.
    /// A provider fetch (``BillingEventKind/subscriptionObserved``) is the same object.
    static func applyLemonSqueezy(_ event: BillingEvent, to state: inout SubscriptionState) {
        switch event.kind {
        case .subscriptionCreated, .subscriptionUpdated, .subscriptionCancelled, .subscriptionResumed,
            .subscriptionExpired, .subscriptionPaused, .subscriptionUnpaused, .subscriptionObserved:
            overwrite(&state.status, event.status)
            overwrite(&state.productID, event.productID)
            overwrite(&state.variantID, event.variantID)
            overwrite(&state.planName, event.planName)
            overwrite(&state.orderID, event.orderID)
            state.renewsAt = event.renewsAt ?? state.renewsAt
            state.endsAt = event.endsAt
            state.trialEndsAt = event.trialEndsAt ?? state.trialEndsAt
            state.cancelAtPeriodEnd = event.cancelled ?? (event.status == "cancelled")
            // The object is whole: no `pause` means not paused.
            state.pauseMode = event.pauseMode
            state.pauseResumesAt = event.pauseResumesAt
        default:
            break
        }
    }
}
