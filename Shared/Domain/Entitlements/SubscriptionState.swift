import Foundation
import BillingModel

/// The projected state of one provider subscription: what the status
/// endpoint reads. Built only by ``SubscriptionFold`` from the event log, so
/// the same set of events always yields the same row, whatever the order in
/// which they arrived. Whether it grants access is ``AccessRules``' call.
public struct SubscriptionState: Sendable, Hashable, Codable {
    public var provider: Provider
    public var subscriptionID: String
    /// The owner: the app user whose checkout produced the subscription (or
    /// who claimed it by verified email). Never set by the fold: it comes
    /// from `purchase_owners` (the strongest evidence; see `ProjectionSchema` in ProjectionStore).
    public var appUserID: String?
    public var customerID: String?
    public var customerEmail: String?
    public var productID: String?
    public var variantID: String?
    public var planName: String?
    /// The provider's own status string (`active`, `on_trial`, `non-renewing`, …).
    public var status: String = "unknown"
    public var renewsAt: Date?
    public var endsAt: Date?
    public var trialEndsAt: Date?
    public var cancelAtPeriodEnd = false
    public var emailToken: String?
    public var cardBrand: String?
    public var cardLastFour: String?
    /// Lemon Squeezy's pre-signed portal and payment-method links: valid for
    /// 24 hours from ``portalURLsSeenAt`` (the provider's time of the object
    /// that carried them), so the status answer drops them when older.
    public var customerPortalURL: String?
    public var updatePaymentMethodURL: String?
    public var portalURLsSeenAt: Date?
    /// Provider timestamp of the newest event folded in.
    public var sourceUpdatedAt: Date?
    /// Dedup key of the newest event folded in (ties and audits).
    public var lastEventKey: String = ""
    /// Where the last event applied stands in the fold's order; an event
    /// after it can be applied without re-reading the log.
    public var foldPosition: SubscriptionFold.Position?
    /// Lemon Squeezy `pause.mode` while paused (`void` or `free`).
    public var pauseMode: String?
    public var pauseResumesAt: Date?
    /// A plan change the provider will make at ``pendingChangeAt`` (docs/plan-changes.md):
    /// the new plan's raw id; nil when none is pending.
    public var pendingVariantID: String?
    public var pendingChangeAt: Date?
    /// A subscription a plan change created to take over from another at
    /// this date (Paystack): it grants nothing before (``hasStarted(at:)``).
    public var startsAt: Date?
    /// Test-mode subscription; nil when no event said.
    public var testMode: Bool?
    /// Lemon Squeezy: the order of the first payment (a part of this
    /// subscription, never a one-time purchase of its own).
    public var orderID: String?
    /// Paystack: the authorization of the charge that created the subscription.
    public var authorizationCode: String?
    /// When the subscription began (the provider's `created_at`).
    public var originalPurchaseAt: Date?
    /// The newest successful payment.
    public var latestPurchaseAt: Date?
    /// First seen no longer renewing (cleared by a resume).
    public var unsubscribeDetectedAt: Date?
    /// First seen with a failed payment (cleared once paid).
    public var billingIssueDetectedAt: Date?
    /// The current period's payment was refunded in full (or charged back)
    /// and nothing was paid since.
    public var refundedAt: Date?
    /// The current period's payment was refunded in part and nothing was
    /// paid since; whether that ends access is ``AccessPolicy``'s call.
    public var partiallyRefundedAt: Date?
    /// A dispute (chargeback) of one of its payments is open since then.
    public var disputeOpenedAt: Date?

    public init(provider: Provider, subscriptionID: String) {
        self.provider = provider
        self.subscriptionID = subscriptionID
    }
}

extension SubscriptionState {
    /// False for a subscription a plan change made to start later
    /// (``startsAt``), until that date, or until the provider has charged it
    /// (its next payment is past the start): the one it replaces grants until then.
    public func hasStarted(at now: Date) -> Bool {
        guard let startsAt, now < startsAt else { return true }
        return (renewsAt ?? startsAt) > startsAt
    }
}
