import Foundation
import Models

/// What one purchase grants at one instant.
public struct Access: Sendable, Hashable {
    public var isActive: Bool
    /// When access ends or ended; nil for lifetime access or when no end is known.
    public var expiresAt: Date?
    public var willRenew: Bool
    public var periodType: EntitlementInfo.PeriodType

    public static let none = Access(isActive: false, expiresAt: nil, willRenew: false, periodType: .normal)
}

/// The access rules, per provider status, in one place (README, "Entitlements").
///
/// | provider | status | access |
/// | --- | --- | --- |
/// | Lemon Squeezy | `on_trial` | yes (trial period), until `trial_ends_at` |
/// | Lemon Squeezy | `active` | yes |
/// | Lemon Squeezy | `past_due` | yes (billing issue flagged; the provider retries) |
/// | Lemon Squeezy | `unpaid` | for ``AccessPolicy/unpaidGrace`` after the billing issue was first seen |
/// | Lemon Squeezy | `cancelled` | until `ends_at` |
/// | Lemon Squeezy | `paused` | `pause.mode` `free`: yes; `void`: no |
/// | Lemon Squeezy | `expired` | no |
/// | Paystack | `active` | yes |
/// | Paystack | `non-renewing` | until the period end |
/// | Paystack | `attention` | for ``AccessPolicy/attentionGrace`` after the failure was first seen |
/// | Paystack | `complete`, `completed`, `cancelled` | no |
///
/// A full refund (or lost dispute) of the current period's payment revokes
/// the subscription until a later payment succeeds, a partial one only
/// under ``AccessPolicy/PartialRefund/revoke`` (see ``MoneyBack``); an open
/// dispute is flagged and still grants; a refunded order grants nothing; a purchase in the other mode
/// (test vs live) than the deployment grants nothing. Unknown statuses grant nothing.
public enum AccessRules {
    public static func access(_ s: SubscriptionState, policy: AccessPolicy, at now: Date) -> Access {
        let revokedAt = policy.revokedAt(refundedAt: s.refundedAt, partiallyRefundedAt: s.partiallyRefundedAt)
        guard policy.grants(testMode: s.testMode), revokedAt == nil else {
            return Access(isActive: false, expiresAt: revokedAt, willRenew: false, periodType: .normal)
        }
        let renews = !s.cancelAtPeriodEnd
        func until(_ end: Date?, renewing: Bool = false, trial: Bool = false) -> Access {
            let active = end.map { $0 > now } ?? false
            return Access(isActive: active, expiresAt: end, willRenew: active && renewing, periodType: trial ? .trial : .normal)
        }
        func open(_ end: Date?, trial: Bool = false) -> Access {
            Access(isActive: true, expiresAt: end, willRenew: renews, periodType: trial ? .trial : .normal)
        }
        let issueSince = s.billingIssueDetectedAt ?? s.sourceUpdatedAt
        switch (s.provider, s.status) {
        case (.lemonsqueezy, "on_trial"): return open(s.trialEndsAt ?? s.renewsAt, trial: true)
        case (.lemonsqueezy, "active"), (.lemonsqueezy, "past_due"), (.paystack, "active"): return open(s.renewsAt)
        case (.lemonsqueezy, "unpaid"): return until(issueSince?.addingTimeInterval(policy.unpaidGrace))
        case (.lemonsqueezy, "cancelled"): return until(s.endsAt)
        case (.lemonsqueezy, "paused"):
            guard s.pauseMode == "free" else { return Access(isActive: false, expiresAt: s.sourceUpdatedAt, willRenew: false, periodType: .normal) }
            // Service continues for free; billing restarts at `resumes_at`, if set.
            return Access(isActive: true, expiresAt: s.pauseResumesAt, willRenew: s.pauseResumesAt != nil, periodType: .normal)
        case (.paystack, "non-renewing"):
            // Paystack clears `next_payment_date` on some non-renewing payloads;
            // without a known end the provider's own "still active" stands.
            guard let end = s.endsAt ?? s.renewsAt else { return Access(isActive: true, expiresAt: nil, willRenew: false, periodType: .normal) }
            return until(end)
        case (.paystack, "attention"):
            var access = until(issueSince?.addingTimeInterval(policy.attentionGrace), renewing: true)
            access.willRenew = access.isActive
            return access
        default:
            return Access(isActive: false, expiresAt: s.endsAt ?? s.sourceUpdatedAt, willRenew: false, periodType: .normal)
        }
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
