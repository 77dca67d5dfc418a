extension Provider {
    /// Stripe (stripe.com): Checkout Sessions, Prices, Subscriptions; webhooks signed with `Stripe-Signature`.
    public static let stripe = Provider(declaring: "stripe")
}

/// Stripe's definition: registered in ``ProviderDirectory``'s built-in list;
/// each module's part is an extension in this folder.
public struct StripeProvider: ProviderDefinition {
    public init() {}

    public var provider: Provider { .stripe }

    public var displayName: String { "Stripe" }

    /// The checkout copies the owner claim onto the subscription
    /// (`subscription_data[metadata]`), so its events and its invoices
    /// (`parent.subscription_details.metadata`) name the owner, and fetched
    /// subscriptions and PaymentIntents carry it too; a subscription has no
    /// separate first order; Checkout charges the Price's stored amount;
    /// `charge.refunded` restates the charge with its running `amount_refunded`.
    /// API limits: 100 requests a second in live mode and 25 in test mode, but 25
    /// a second per endpoint in both, and a sweep calls one endpoint: 1,500 a
    /// minute for either key. A session takes a promotion code and sets a
    /// subscription's trial days. Event times (`created`) are whole seconds.
    public var traits: ProviderTraits {
        ProviderTraits(
            catalogPrefix: "st", subscriptionEventsNameTheOwner: true, subscriptionsHaveAFirstOrder: false,
            chargesLinkToSubscriptionsByCard: false, productIDIsAPlanCode: false, fetchedPurchasesMatchCheckouts: false,
            checkoutStatesTheAmount: false, refundsRestateTheOrder: true, requestsPerMinute: RequestLimits(test: 1_500, live: 1_500),
            checkoutTakesPromotionCodes: true, checkoutSetsTheTrial: true, eventTimesAreWholeSeconds: true)
    }

    /// `stripe:<id>`: the subscription (`sub_…`), or the PaymentIntent (`pi_…`)
    /// of a one-time purchase; the ordering key its events use.
    public func snapshotKey(entity: ProviderSnapshot.Entity, entityID: String, customerID: String?) -> String {
        TopicKey.make(provider, entityID)
    }
}
