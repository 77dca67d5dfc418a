import BillingModel

extension StripeProvider: EntitlementProviding {
    /// Without the `cancel_at_period_end` flag: the fold keeps it apart
    /// (``SubscriptionState/cancelAtPeriodEnd``) and the access rules read both.
    public func phase(of status: String) -> SubscriptionPhase {
        StripeSubscriptionStatus.phase(of: status, cancelAtPeriodEnd: false)
    }

    /// Subscription events carry the whole Subscription object; the
    /// checkout's completion names the subscription and its price but not its
    /// status; a paid invoice extends the period it paid for.
    public func apply(_ event: BillingEvent, to state: inout SubscriptionState) {
        switch event.kind {
        case .subscriptionCreated, .subscriptionUpdated, .subscriptionCancelled, .subscriptionResumed, .subscriptionExpired,
            .subscriptionPaused, .subscriptionUnpaused, .subscriptionObserved:
            SubscriptionFold.overwrite(&state.productID, event.productID)
            SubscriptionFold.overwrite(&state.variantID, event.variantID)
            SubscriptionFold.overwrite(&state.planName, event.planName)
            // A Subscription object (not the checkout's claim on one) states all of these.
            guard let status = event.status else { return }
            state.status = status
            state.renewsAt = event.renewsAt
            state.endsAt = event.endsAt
            state.trialEndsAt = event.trialEndsAt ?? state.trialEndsAt
            state.cancelAtPeriodEnd = event.cancelled ?? false
            state.pauseMode = nil
            state.pauseResumesAt = nil
        case .paymentSucceeded, .paymentRecovered:
            if let periodEnd = event.renewsAt, !state.cancelAtPeriodEnd {
                state.renewsAt = max(state.renewsAt ?? periodEnd, periodEnd)
            }
        default:
            break
        }
    }

    /// A Product grants each of its Prices; a Price grants itself.
    public var entitlementIDLists: [String] { ["products", "prices"] }

    public func grants(_ lists: [String: Set<String>], productID: String?, variantID: String?) -> Bool {
        productID.map { lists["products"]?.contains($0) == true } == true || variantID.map { lists["prices"]?.contains($0) == true } == true
    }
}
