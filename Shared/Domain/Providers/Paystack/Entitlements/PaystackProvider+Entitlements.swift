import BillingModel

extension PaystackProvider: EntitlementProviding {
    public func phase(of status: String) -> SubscriptionPhase {
        PaystackStatus(rawValue: status)?.phase ?? .unrecognized
    }

    public func apply(_ event: BillingEvent, to state: inout SubscriptionState) {
        SubscriptionFold.applyPaystack(event, to: &state)
    }

    /// A plan code is a purchase's product (and its variant).
    public var entitlementIDLists: [String] { ["plans"] }

    public func grants(_ lists: [String: Set<String>], productID: String?, variantID: String?) -> Bool {
        guard let plans = lists["plans"] else { return false }
        return [productID, variantID].contains { $0.map(plans.contains) == true }
    }
}
