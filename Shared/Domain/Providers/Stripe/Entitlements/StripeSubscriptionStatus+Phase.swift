import BillingModel

extension StripeSubscriptionStatus {
    /// The phase this status means, with the subscription's `cancel_at_period_end`.
    ///
    /// `incomplete` maps to ``SubscriptionPhase/ended``: no access while the first
    /// payment is outstanding, and Stripe sends `customer.subscription.updated`
    /// with `active` once it succeeds (there is no "awaiting first payment"
    /// phase; the access rules would grant nothing for one either). `paused`
    /// maps to ``SubscriptionPhase/paused`` with no pause mode, which the rules
    /// read as a pause without service.
    public func phase(cancelAtPeriodEnd: Bool) -> SubscriptionPhase {
        switch self {
        case .trialing: cancelAtPeriodEnd ? .nonRenewing : .trialing
        case .active: cancelAtPeriodEnd ? .nonRenewing : .renewing
        case .pastDue: .pastDue
        case .unpaid: .unpaid
        case .canceled, .incomplete, .incompleteExpired: .ended
        case .paused: .paused
        }
    }

    /// The phase of a status as it arrived: an unknown status grants nothing.
    public static func phase(of status: String, cancelAtPeriodEnd: Bool) -> SubscriptionPhase {
        StripeSubscriptionStatus(rawValue: status)?.phase(cancelAtPeriodEnd: cancelAtPeriodEnd) ?? .unrecognized
    }
}
