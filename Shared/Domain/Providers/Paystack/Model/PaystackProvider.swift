extension Provider {
    /// Paystack (paystack.com): plans, subscriptions and transactions; webhooks signed with `x-paystack-signature`.
    public static let paystack = Provider(declaring: "paystack")
}

/// Paystack's definition: registered in ``ProviderDirectory``'s built-in
/// list; each module's part is an extension in this folder.
public struct PaystackProvider: ProviderDefinition {
    public init() {}

    public var displayName: String { "Paystack" }

    public var provider: Provider { .paystack }

    /// A subscription has no metadata of its own, and its charges (with the
    /// metadata) name the customer, plan code and card, not the subscription;
    /// a transaction is initialised with its amount; each refund names the
    /// payment it returns and its own amount; 100 API requests a minute with a
    /// test key, 600 with a live one; a transaction cannot start without the
    /// buyer's email; it has neither promotion codes nor per-checkout trials;
    /// a plan change ends the subscription and starts another.
    public var traits: ProviderTraits {
        ProviderTraits(
            catalogPrefix: "ps", subscriptionEventsNameTheOwner: false, subscriptionsHaveAFirstOrder: false,
            chargesLinkToSubscriptionsByCard: true, productIDIsAPlanCode: true, fetchedPurchasesMatchCheckouts: false,
            checkoutStatesTheAmount: true, refundsRestateTheOrder: false, requestsPerMinute: RequestLimits(test: 100, live: 600),
            checkoutNeedsTheEmail: true, planChangesEndTheSubscription: true)
    }

    /// `paystack:<customer code>` when known (all of one customer's events
    /// share it), else `paystack:<subscription code>` or `paystack:ref_<reference>`.
    public func snapshotKey(entity: ProviderSnapshot.Entity, entityID: String, customerID: String?) -> String {
        if let customerID, !customerID.isEmpty { return TopicKey.make(provider, customerID) }
        return TopicKey.make(provider, entity == .transaction ? "ref_\(entityID)" : entityID)
    }
}
