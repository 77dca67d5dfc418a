import Foundation
import Models

/// The projected state of one provider subscription: what the status
/// endpoint reads. Built only by ``SubscriptionFold`` from the event log, so
/// the same set of events always yields the same row, whatever the order in
/// which they arrived.
public struct SubscriptionState: Sendable, Hashable, Codable {
    public var provider: Provider
    public var subscriptionID: String
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
    public var customerPortalURL: String?
    public var updatePaymentMethodURL: String?
    /// Provider timestamp of the newest event folded in.
    public var sourceUpdatedAt: Date?
    /// Dedup key of the newest event folded in (ties and audits).
    public var lastEventKey: String = ""

    public init(provider: Provider, subscriptionID: String) {
        self.provider = provider
        self.subscriptionID = subscriptionID
    }

    /// Whether the subscription grants access at `now`, as the provider means it:
    /// Lemon Squeezy `on_trial`, `active`, `past_due`, and `cancelled` until
    /// `ends_at`; Paystack `active`, `non-renewing` and `attention` until the
    /// period ends.
    public func isActive(at now: Date) -> Bool {
        switch provider {
        case .lemonsqueezy:
            switch status {
            case "on_trial", "active", "past_due": return true
            case "cancelled": return (endsAt ?? .distantPast) > now
            default: return false
            }
        case .paystack:
            switch status {
            case "active": return true
            case "non-renewing", "attention":
                guard let periodEnd = endsAt ?? renewsAt else { return true }
                return periodEnd > now
            default: return false
            }
        }
    }
}
