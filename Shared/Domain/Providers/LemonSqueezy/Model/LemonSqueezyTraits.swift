extension ProviderTraits {
    /// Lemon Squeezy: whole objects with custom data on every event; a
    /// subscription's first payment is also an order; API objects carry no
    /// custom data; checkouts charge the variant's stored price; 300 API
    /// requests a minute per store, whatever the key.
    static let lemonSqueezy = ProviderTraits(
        catalogPrefix: "ls", subscriptionEventsNameTheOwner: true, subscriptionsHaveAFirstOrder: true,
        chargesLinkToSubscriptionsByCard: false, productIDIsAPlanCode: false, fetchedPurchasesMatchCheckouts: true,
        checkoutStatesTheAmount: false, requestsPerMinute: RequestLimits(test: 300, live: 300))
}
