import BillingModel

/// A provider's entitlements part: what its subscription statuses mean, its
/// own step of ``SubscriptionFold``, and which of its ids the entitlements
/// file lists. Each provider's `Entitlements/` folder conforms its definition.
public protocol EntitlementProviding: ProviderDefinition {
    /// The phase a status of this provider's subscriptions means;
    /// ``SubscriptionPhase/unrecognized`` for a status it never documented.
    func phase(of status: String) -> SubscriptionPhase

    /// This provider's own step of the fold: the subscription fields its
    /// events state (status, product, renewal and end dates, cancellation,
    /// pause), applied after the fields every provider shares.
    func apply(_ event: BillingEvent, to state: inout SubscriptionState)

    /// The id lists an entitlement's entry for this provider may hold in the
    /// entitlements file (Lemon Squeezy `products` and `variants`, Paystack `plans`).
    var entitlementIDLists: [String] { get }

    /// Whether a purchase of `productID`/`variantID` is one of `lists` (keyed
    /// by ``entitlementIDLists``).
    func grants(_ lists: [String: Set<String>], productID: String?, variantID: String?) -> Bool
}

extension Provider {
    /// This provider's entitlements part.
    var entitlementRules: any EntitlementProviding { ProviderDirectory.part((any EntitlementProviding).self, of: self) }
}
