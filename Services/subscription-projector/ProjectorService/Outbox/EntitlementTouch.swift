import BillingModel

/// One purchase (or promotional grant) a transaction wrote, for one of the
/// app users it belongs or belonged to: a row of `entitlement_touched`
/// (filled by the triggers of migration 9, `ProjectionSchema`, and by the
/// grant statements).
public struct EntitlementTouch: Sendable, Hashable {
    /// What the touched row is.
    public enum Kind: String, Sendable, Hashable {
        case subscription, order
        /// A promotional grant (provider ``EntitlementTouch/grantProvider``, id the grant's).
        case grant

        init(_ type: PurchaseType) { self = type == .order ? .order : .subscription }
    }

    /// The `provider` of a grant's touch: no payment provider wrote it.
    public static let grantProvider = "storefront"

    public var appUserID: String
    public var provider: String
    public var purchaseType: Kind
    public var purchaseID: String
    /// The purchase moved to or away from this user.
    public var transferred: Bool

    public init(appUserID: String, provider: String, purchaseType: Kind, purchaseID: String, transferred: Bool) {
        self.appUserID = appUserID
        self.provider = provider
        self.purchaseType = purchaseType
        self.purchaseID = purchaseID
        self.transferred = transferred
    }
}
