extension ProviderTraits {
    /// Paystack: a subscription has no metadata of its own, and its charges
    /// (with the metadata) name the customer, plan code and card, not the
    /// subscription; a transaction is initialised with its amount; 100 API
    /// requests a minute with a test key, 600 with a live one.
    static let paystack = ProviderTraits(
        catalogPrefix: "ps", subscriptionEventsNameTheOwner: false, subscriptionsHaveAFirstOrder: false,
        chargesLinkToSubscriptionsByCard: true, productIDIsAPlanCode: true, fetchedPurchasesMatchCheckouts: false,
        checkoutStatesTheAmount: true, requestsPerMinute: RequestLimits(test: 100, live: 600))
}
