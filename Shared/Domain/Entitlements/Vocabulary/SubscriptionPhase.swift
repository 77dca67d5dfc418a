import BillingModel

/// What a provider's subscription status means, in Storefront's own words.
///
/// Each provider names its statuses differently (Lemon Squeezy `past_due`,
/// Paystack `attention`, …); the access rules, the overdue check and the
/// fold's lifecycle dates speak only of phases, so a provider is taught to
/// them by mapping its vocabulary here (``Provider/phase(of:)``), and an
/// access rule never names a provider. The switches over phases are
/// exhaustive: a new phase is pointed out everywhere it matters.
public enum SubscriptionPhase: Sendable, Hashable, CaseIterable {
    /// In a trial; the provider charges at the trial's end.
    case trialing
    /// Paid up; the provider charges at the period end.
    case renewing
    /// A renewal charge failed and the provider retries; the period still runs.
    case pastDue
    /// The provider stopped retrying a failed charge; access for a grace after the failure.
    case unpaid
    /// A charge failed and the provider retries; access for a grace after the failure,
    /// still renewing (Paystack's `attention`).
    case retryingAfterFailure
    /// Cancelled: access until its end date, none without one.
    case cancelled
    /// Will not renew: access until the period end; without a known end, the
    /// provider's own word that it still runs stands.
    case nonRenewing
    /// Paused; service continues only in a free pause.
    case paused
    /// Over: no access.
    case ended
    /// A status this version does not know: no access.
    case unrecognized

    /// No renewal charge will happen.
    public var isEndedOrEnding: Bool {
        switch self {
        case .cancelled, .nonRenewing, .ended: true
        case .trialing, .renewing, .pastDue, .unpaid, .retryingAfterFailure, .paused, .unrecognized: false
        }
    }

    /// A payment failed and has not been recovered.
    public var isBillingIssue: Bool {
        switch self {
        case .pastDue, .unpaid, .retryingAfterFailure: true
        case .trialing, .renewing, .cancelled, .nonRenewing, .paused, .ended, .unrecognized: false
        }
    }

    /// In good standing: a payment that went through clears an earlier billing issue.
    public var isInGoodStanding: Bool {
        switch self {
        case .trialing, .renewing: true
        case .pastDue, .unpaid, .retryingAfterFailure, .cancelled, .nonRenewing, .paused, .ended, .unrecognized: false
        }
    }
}

extension Provider {
    /// The phase a status of this provider's subscriptions means.
    public func phase(of status: String) -> SubscriptionPhase {
        entitlementRules.phase(of: status)
    }
}
