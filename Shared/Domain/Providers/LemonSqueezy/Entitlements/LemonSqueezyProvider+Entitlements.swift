import BillingModel

extension LemonSqueezyProvider: EntitlementProviding {
    public func phase(of status: String) -> SubscriptionPhase {
        LemonSqueezyStatus(rawValue: status)?.phase ?? .unrecognized
    }

    public func apply(_ event: BillingEvent, to state: inout SubscriptionState) {
        SubscriptionFold.applyLemonSqueezy(event, to: &state)
    }

    /// Products grant every variant; a variant grants itself.
    public var entitlementIDLists: [String] { ["products", "variants"] }

    public func grants(_ lists: [String: Set<String>], productID: String?, variantID: String?) -> Bool {
        productID.map { lists["products"]?.contains($0) == true } == true || variantID.map { lists["variants"]?.contains($0) == true } == true
    }
}
