import BillingModel

/// Which subscription phases are paying, trialing or in grace for revenue
/// (docs/revenue.md, "Definitions"), read through each provider's status
/// vocabulary (``Provider/phase(of:)``), so no rule here names a provider.
/// Not the access rules: a subscription cancelled at the end of its period
/// still pays for that period, and one whose renewal failed is counted
/// until the provider gives up on it, as Baremetrics does; revenue stops
/// when the provider ends it, or at its announced end when no event says so.
enum RevenueStatus {
    /// Paying: MRR counts (Lemon Squeezy `active`, `past_due`, `cancelled`;
    /// Paystack `active`, `attention`, `non-renewing`).
    static func isPaying(_ phase: SubscriptionPhase) -> Bool {
        switch phase {
        case .renewing, .pastDue, .retryingAfterFailure, .cancelled, .nonRenewing: true
        case .trialing, .unpaid, .paused, .ended, .unrecognized: false
        }
    }

    /// Phases that end at ``SubscriptionState/endsAt`` without another event.
    static func endsAtPeriodEnd(_ phase: SubscriptionPhase) -> Bool {
        switch phase {
        case .cancelled, .nonRenewing: true
        case .trialing, .renewing, .pastDue, .unpaid, .retryingAfterFailure, .paused, .ended, .unrecognized: false
        }
    }

    /// A renewal failed and the provider is still retrying.
    static func isInGrace(_ phase: SubscriptionPhase) -> Bool {
        switch phase {
        case .pastDue, .retryingAfterFailure: true
        case .trialing, .renewing, .unpaid, .cancelled, .nonRenewing, .paused, .ended, .unrecognized: false
        }
    }
}
