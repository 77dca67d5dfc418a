import BillingModel

/// One purchase a transaction wrote, for one of the app users it belongs or
/// belonged to: a row of `entitlement_touched` (filled by the triggers of
/// migration 9, `ProjectionSchema`).
public struct EntitlementTouch: Sendable, Hashable {
    public var appUserID: String
    public var provider: String
    public var purchaseType: PurchaseType
    public var purchaseID: String
    /// The purchase moved to or away from this user.
    public var transferred: Bool

    public init(appUserID: String, provider: String, purchaseType: PurchaseType, purchaseID: String, transferred: Bool) {
        self.appUserID = appUserID
        self.provider = provider
        self.purchaseType = purchaseType
        self.purchaseID = purchaseID
        self.transferred = transferred
    }
}
