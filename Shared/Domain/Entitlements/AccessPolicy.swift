import Foundation

/// The deployment's choices in the access rules: how long the statuses in
/// which a provider is still trying to collect keep access, and whether this
/// deployment sells in test or live mode.
public struct AccessPolicy: Sendable, Hashable {
    /// Lemon Squeezy `unpaid` (every retry failed): access for this long after
    /// the billing issue was first seen (`ENTITLEMENT_UNPAID_GRACE`, default none).
    public var unpaidGrace: TimeInterval
    /// Paystack `attention` (the last charge failed; retried on the next
    /// payment date): access for this long after the failure was first seen
    /// (`ENTITLEMENT_ATTENTION_GRACE`, default none).
    public var attentionGrace: TimeInterval
    /// A subscription whose status still says it renews (Lemon Squeezy
    /// `active`, `past_due`, `on_trial`, `paused` for free until a date;
    /// Paystack `active`) but whose period end passed with no news of the
    /// renewal keeps access for this long after that end, and then loses it
    /// (`ENTITLEMENT_RENEWAL_GRACE`, default ``defaultRenewalGrace``). The
    /// bound that makes access end even when the event that ends a
    /// subscription is lost and the provider no longer knows it.
    public var renewalGrace: TimeInterval
    /// True when the deployment uses the providers' test mode: only test-mode
    /// purchases grant; false (live): only live ones do.
    public var testDeployment: Bool
    /// What a partial refund of the current period's payment (or of a
    /// one-time order) does (`ENTITLEMENT_PARTIAL_REFUND`, default `keep`):
    /// a partial refund is usually a goodwill credit, not a cancellation.
    public var partialRefund: PartialRefund

    /// What a partial refund does to access.
    public enum PartialRefund: String, Sendable, Hashable, CaseIterable {
        /// Access continues; the refund is only recorded.
        case keep
        /// Access ends as with a full refund.
        case revoke
    }

    /// 16 days. Lemon Squeezy retries a failed renewal four times over about
    /// two weeks before the subscription becomes `unpaid` (its help page
    /// "Recovery and dunning", docs.lemonsqueezy.com), and keeps it
    /// `past_due` meanwhile: a subscriber in that dunning must not lose
    /// access before the provider gives up, even if `renews_at` stays at the
    /// date the charge failed. Two more days cover a late last retry and its
    /// webhook. Paystack charges on the payment date itself (a failure turns
    /// the subscription to `attention` at once, whose own grace then counts),
    /// so for Paystack the bound is generous; one setting serves both.
    public static let defaultRenewalGrace: TimeInterval = 16 * 86_400

    public init(
        unpaidGrace: TimeInterval = 0, attentionGrace: TimeInterval = 0, renewalGrace: TimeInterval = defaultRenewalGrace,
        partialRefund: PartialRefund = .keep, testDeployment: Bool
    ) {
        self.unpaidGrace = unpaidGrace
        self.attentionGrace = attentionGrace
        self.renewalGrace = renewalGrace
        self.partialRefund = partialRefund
        self.testDeployment = testDeployment
    }

    /// When money given back ended access: a full refund or lost dispute,
    /// or a partial refund under ``PartialRefund/revoke``; nil while none did.
    public func revokedAt(refundedAt: Date?, partiallyRefundedAt: Date?) -> Date? {
        refundedAt ?? (partialRefund == .revoke ? partiallyRefundedAt : nil)
    }

    /// Whether a purchase in this mode may grant here. An unknown mode is the
    /// deployment's own: the webhook was verified with this deployment's key
    /// (Paystack signs with the secret key of the mode), and Lemon Squeezy
    /// always says.
    public func grants(testMode: Bool?) -> Bool {
        (testMode ?? testDeployment) == testDeployment
    }
}
