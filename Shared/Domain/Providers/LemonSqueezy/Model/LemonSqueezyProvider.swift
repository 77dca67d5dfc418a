extension Provider {
    /// Lemon Squeezy (lemonsqueezy.com): stores, products and variants; webhooks signed with `X-Signature`.
    public static let lemonsqueezy = Provider(declaring: "lemonsqueezy")
}

/// Lemon Squeezy's definition: registered in ``ProviderDirectory``'s built-in
/// list; each module's part is an extension in this folder.
public struct LemonSqueezyProvider: ProviderDefinition {
    public init() {}

    public var displayName: String { "Lemon Squeezy" }

    public var provider: Provider { .lemonsqueezy }

    /// Whole objects with custom data on every event; a subscription's first
    /// payment is also an order; API objects carry no custom data; checkouts
    /// charge the variant's stored price; a refund restates the order with its
    /// running `refunded_amount`; 300 API requests a minute per store, whatever the key;
    /// a checkout takes a discount code, but a trial is the variant's own;
    /// `updated_at` is whole seconds (zero microseconds).
    public var traits: ProviderTraits {
        ProviderTraits(
            catalogPrefix: "ls", subscriptionEventsNameTheOwner: true, subscriptionsHaveAFirstOrder: true,
            chargesLinkToSubscriptionsByCard: false, productIDIsAPlanCode: false, fetchedPurchasesMatchCheckouts: true,
            checkoutStatesTheAmount: false, refundsRestateTheOrder: true, requestsPerMinute: RequestLimits(test: 300, live: 300),
            checkoutTakesPromotionCodes: true, eventTimesAreWholeSeconds: true)
    }

    /// `lemonsqueezy:sub_<id>` / `lemonsqueezy:order_<id>`: the keys its webhooks use.
    public func snapshotKey(entity: ProviderSnapshot.Entity, entityID: String, customerID: String?) -> String {
        TopicKey.make(provider, entity == .subscription ? "sub_\(entityID)" : "order_\(entityID)")
    }
}
