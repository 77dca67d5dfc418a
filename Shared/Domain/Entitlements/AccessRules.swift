import Foundation
import BillingModel

/// What one purchase grants at one instant.
public struct Access: Sendable, Hashable {
    public var isActive: Bool
    /// When access ends or ended; nil for lifetime access or when no end is known.
    public var expiresAt: Date?
    public var willRenew: Bool
    public var periodType: EntitlementInfo.PeriodType

    public static let none = Access(isActive: false, expiresAt: nil, willRenew: false, periodType: .normal)
}

/// The access rules, per subscription phase, in one place (README, "Entitlements").
/// Each provider's statuses map to a ``SubscriptionPhase`` (``Provider/phase(of:)``,
/// one file per provider in `Vocabulary/`); the rules below speak only of phases.
///
/// | provider | status (phase) | access |
/// | --- | --- | --- |
/// | Lemon Squeezy | `on_trial` (trialing) | yes (trial period), until `trial_ends_at` + ``AccessPolicy/renewalGrace`` |
/// | Lemon Squeezy | `active` (renewing) | yes, until `renews_at` + ``AccessPolicy/renewalGrace`` |
/// | Lemon Squeezy | `past_due` (pastDue) | yes (billing issue flagged; the provider retries), until `renews_at` + ``AccessPolicy/renewalGrace`` |
/// | Lemon Squeezy | `unpaid` (unpaid) | for ``AccessPolicy/unpaidGrace`` after the billing issue was first seen |
/// | Lemon Squeezy | `cancelled` (cancelled) | until `ends_at` |
/// | Lemon Squeezy | `paused` (paused) | `pause.mode` `free`: yes, until `resumes_at` + ``AccessPolicy/renewalGrace`` (none: open-ended); `void`: no |
/// | Lemon Squeezy | `expired` (ended) | no |
/// | Paystack | `active` (renewing) | yes, until `next_payment_date` + ``AccessPolicy/renewalGrace`` |
/// | Paystack | `non-renewing` (nonRenewing) | until the period end |
/// | Paystack | `attention` (retryingAfterFailure) | for ``AccessPolicy/attentionGrace`` after the failure was first seen |
/// | Paystack | `complete`, `completed`, `cancelled` (ended) | no |
///
/// Access is time-bounded: `isActive` implies `expiresAt` is nil or later
/// than `now - renewalGrace`. A status that says the provider will charge at
/// the period end (`renews_at`, the trial's end, a free pause's
/// `resumes_at`) keeps access past that end only for the renewal grace, while
/// no news of the charge has come (the provider retrying, a late webhook);
/// after it, no access, whatever the stored status says, so a subscription
/// whose ending event was lost (and that the provider no longer knows) does
/// not grant for ever. `expiresAt` stays the period end (within the grace it
/// is in the past), and `willRenew` is false once access is over. The
/// statuses with their own bound (`cancelled`, `non-renewing`: their end;
/// `unpaid`, `attention`: their grace after the failure) are unchanged. A
/// subscription past its period end is ``overduePeriodEnd(_:at:)``: the
/// checkout asks the reconciler to fetch it at once.
///
/// A full refund (or lost dispute) of the current period's payment revokes
/// the subscription until a later payment succeeds, a partial one only
/// under ``AccessPolicy/PartialRefund/revoke`` (see ``MoneyBack``); an open
/// dispute is flagged and still grants; a refunded order grants nothing; a
/// subscription a plan change created to start later grants nothing before
/// it starts (``SubscriptionState/hasStarted(at:)``); a purchase in the other mode
/// (test vs live) than the deployment grants nothing. Unknown statuses grant nothing.
public enum AccessRules {
    public static func access(_ s: SubscriptionState, policy: AccessPolicy, at now: Date) -> Access {
        // A plan change's new subscription: the one it replaces grants until it starts.
        guard s.hasStarted(at: now) else { return .none }
        let revokedAt = policy.revokedAt(refundedAt: s.refundedAt, partiallyRefundedAt: s.partiallyRefundedAt)
        guard policy.grants(testMode: s.testMode), revokedAt == nil else {
            return Access(isActive: false, expiresAt: revokedAt, willRenew: false, periodType: .normal)
        }
        let renews = !s.cancelAtPeriodEnd
        func until(_ end: Date?, renewing: Bool = false, trial: Bool = false) -> Access {
            let active = end.map { $0 > now } ?? false
            return Access(isActive: active, expiresAt: end, willRenew: active && renewing, periodType: trial ? .trial : .normal)
        }
        /// The provider will charge at `end`: access until then, and for the
        /// renewal grace after it while no news of that charge came. No
        /// known end: open (the provider says it runs and names no date).
        func renewing(_ end: Date?, trial: Bool = false) -> Access {
            let periodType: EntitlementInfo.PeriodType = trial ? .trial : .normal
            guard let end else { return Access(isActive: true, expiresAt: nil, willRenew: renews, periodType: periodType) }
            let active = end.addingTimeInterval(policy.renewalGrace) > now
            return Access(isActive: active, expiresAt: end, willRenew: active && renews, periodType: periodType)
        }
        let issueSince = s.billingIssueDetectedAt ?? s.sourceUpdatedAt
        switch s.provider.phase(of: s.status) {
        case .trialing: return renewing(s.trialEndsAt ?? s.renewsAt, trial: true)
        case .renewing, .pastDue: return renewing(s.renewsAt)
        case .unpaid: return until(issueSince?.addingTimeInterval(policy.unpaidGrace))
        case .cancelled: return until(s.endsAt)
        case .paused:
            guard s.pauseMode == "free" else { return Access(isActive: false, expiresAt: s.sourceUpdatedAt, willRenew: false, periodType: .normal) }
            // Service continues for free; billing restarts at `resumes_at`, if
            // set (from then on like any renewal); without it the pause is open-ended.
            guard let resumesAt = s.pauseResumesAt else { return Access(isActive: true, expiresAt: nil, willRenew: false, periodType: .normal) }
            return renewing(resumesAt)
        case .nonRenewing:
            // Paystack clears `next_payment_date` on some non-renewing payloads;
            // without a known end the provider's own "still active" stands.
            guard let end = s.endsAt ?? s.renewsAt else { return Access(isActive: true, expiresAt: nil, willRenew: false, periodType: .normal) }
            return until(end)
        case .retryingAfterFailure:
            var access = until(issueSince?.addingTimeInterval(policy.attentionGrace), renewing: true)
            access.willRenew = access.isActive
            return access
        case .ended, .unrecognized:
            return Access(isActive: false, expiresAt: s.endsAt ?? s.sourceUpdatedAt, willRenew: false, periodType: .normal)
        }
    }

    /// The date at which the stored status says the provider would next
    /// charge or resume the subscription, once it has passed: the renewal
    /// should have happened (or failed) by `now`, and no news of it is in the
    /// projection. Lemon Squeezy `on_trial` (trial end), `active`,
    /// `past_due` (`renews_at`), `paused` (`resumes_at`); Paystack `active`,
    /// `attention` (`next_payment_date`). nil for every other status, an
    /// unknown date, or one still ahead. The checkout asks the reconciler to
    /// fetch such a subscription at once rather than at the next sweep.
    public static func overduePeriodEnd(_ s: SubscriptionState, at now: Date) -> Date? {
        let end: Date?
        switch s.provider.phase(of: s.status) {
        case .trialing: end = s.trialEndsAt ?? s.renewsAt
        case .renewing, .pastDue, .retryingAfterFailure: end = s.renewsAt
        case .paused: end = s.pauseResumesAt
        case .unpaid, .cancelled, .nonRenewing, .ended, .unrecognized: end = nil
        }
        guard let end, end <= now else { return nil }
        return end
    }

    /// A one-time purchase: paid and never refunded, in this deployment's
    /// mode, and not the first payment of a subscription; for life, or for
    /// `duration` after it was paid.
    public static func access(_ order: ProjectedOrder, duration: TimeInterval?, policy: AccessPolicy, at now: Date) -> Access {
        let revokedAt = policy.revokedAt(refundedAt: order.refundedAt, partiallyRefundedAt: order.partiallyRefundedAt)
        guard order.subscriptionID == nil, policy.grants(testMode: order.testMode), order.grantsAccess, revokedAt == nil else {
            return Access(isActive: false, expiresAt: revokedAt, willRenew: false, periodType: .normal)
        }
        guard let duration else { return Access(isActive: true, expiresAt: nil, willRenew: false, periodType: .normal) }
        let end = (order.paidAt ?? now).addingTimeInterval(duration)
        return Access(isActive: end > now, expiresAt: end, willRenew: false, periodType: .normal)
    }
}
