import BillingModel
import Entitlements

extension TestPayProvider: EntitlementProviding {
    func phase(of status: String) -> SubscriptionPhase {
        switch status {
        case "active": .renewing
        case "canceling": .nonRenewing
        case "expired": .ended
        default: .unrecognized
        }
    }

    /// Every event carries the whole subscription.
    func apply(_ event: BillingEvent, to state: inout SubscriptionState) {
        if let status = event.status { state.status = status }
        state.productID = event.productID ?? state.productID
        state.variantID = event.variantID ?? state.variantID
        state.renewsAt = event.renewsAt ?? state.renewsAt
        state.cancelAtPeriodEnd = event.cancelled ?? false
        if event.kind == .subscriptionExpired { state.endsAt = event.updatedAt }
    }

    var entitlementIDLists: [String] { ["plans"] }

    func grants(_ lists: [String: Set<String>], productID: String?, variantID: String?) -> Bool {
        productID.map { lists["plans"]?.contains($0) == true } == true
    }
}
