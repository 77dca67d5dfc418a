import Foundation
import BillingModel

/// A subscription as a provider reports it right now, in provider-neutral form.
///
/// ``status`` is the provider's raw string (Lemon Squeezy `active`, `cancelled`,
/// `past_due`…; Paystack `active`, `non-renewing`, `attention`, `complete(d)`,
/// `cancelled`); interpreting it is the projector's job, not the client's.
public struct ProviderSubscription: Sendable, Hashable, Codable {
    public var provider: Provider
    /// Lemon Squeezy subscription id; Paystack `subscription_code` (`SUB_…`).
    public var id: String
    public var status: String
    /// Lemon Squeezy `customer_id`; Paystack `customer_code` (`CUS_…`).
    public var customerID: String?
    public var customerEmail: String?
    /// Lemon Squeezy product id; Paystack plan code.
    public var productID: String?
    /// Lemon Squeezy variant id; Paystack plan code.
    public var variantID: String?
    /// Paystack plan code (nil for Lemon Squeezy).
    public var planCode: String?
    /// Lemon Squeezy `product_name`; Paystack plan name.
    public var productName: String?
    /// Lemon Squeezy `variant_name`; nil for Paystack.
    public var variantName: String?
    /// Start of the next period (Lemon Squeezy `renews_at`; Paystack `next_payment_date` while it renews).
    public var renewsAt: Date?
    /// When access ends for a cancelled subscription (Lemon Squeezy `ends_at`;
    /// Paystack `next_payment_date` of a `non-renewing` one).
    public var endsAt: Date?
    public var trialEndsAt: Date?
    /// The next charge (Lemon Squeezy `renews_at`, Paystack `next_payment_date`).
    public var nextPaymentDate: Date?
    /// Lemon Squeezy `cancelled`; for Paystack true when `non-renewing` or `cancelled`.
    public var cancelled: Bool
    /// Paystack `email_token` (needed to disable/enable); nil for Lemon Squeezy.
    public var emailToken: String?
    /// Lemon Squeezy `urls.customer_portal` (pre-signed, valid 24 h); nil for Paystack
    /// (ask ``PaymentProvider/managementURL(subscriptionID:)``).
    public var customerPortalURL: String?
    /// Lemon Squeezy `urls.update_payment_method`.
    public var updatePaymentMethodURL: String?
    /// Lowercase card brand (`visa`), when known.
    public var cardBrand: String?
    public var cardLastFour: String?
    public var testMode: Bool?
    /// A plan change the provider will make later (Stripe: the next phase of
    /// the subscription's schedule): the new plan's raw id; nil when none is pending.
    public var pendingVariantID: String?
    /// When ``pendingVariantID`` takes over: the end of the current period.
    public var pendingChangeAt: Date?
    /// The subscription the provider made to carry ``pendingVariantID``
    /// (Paystack: a new subscription from ``pendingChangeAt``); nil when the
    /// change is made to this subscription itself.
    public var successor: ObservedSubscription.Successor?

    public init(provider: Provider, id: String, status: String) {
        self.provider = provider
        self.id = id
        self.status = status
        self.cancelled = false
    }
}
