import BillingModel

extension ProviderTraits {
    /// Stripe: the checkout copies the owner claim onto the subscription
    /// (`subscription_data[metadata]`), so its events and its invoices
    /// (`parent.subscription_details.metadata`) name the owner, and fetched
    /// subscriptions and PaymentIntents carry it too; a subscription has no
    /// separate first order; Checkout charges the Price's stored amount;
    /// `charge.refunded` restates the charge with its running `amount_refunded`.
    /// API limits: 100 requests a second in live mode and 25 in test mode, but 25
    /// a second per endpoint in both, and a sweep calls one endpoint: 1,500 a
    /// minute for either key. The seam registers it (docs/providers/stripe.md).
    public static let stripe = ProviderTraits(
        catalogPrefix: "st", subscriptionEventsNameTheOwner: true, subscriptionsHaveAFirstOrder: false,
        chargesLinkToSubscriptionsByCard: false, productIDIsAPlanCode: false, fetchedPurchasesMatchCheckouts: false,
        checkoutStatesTheAmount: false, refundsRestateTheOrder: true, requestsPerMinute: RequestLimits(test: 1_500, live: 1_500))
}
