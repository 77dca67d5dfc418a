import Foundation
import BillingModel

/// A hosted checkout the checkout service opened (`checkouts` table).
public struct ProjectedCheckout: Sendable, Hashable {
    public var checkoutID: String
    public var provider: Provider
    public var appUserID: String
    public var variantID: String
    public var productID: String?
    public var url: String
    public var createdAt: Date
    public var expiresAt: Date?
    public var completedAt: Date?

    public init(checkoutID: String, provider: Provider, appUserID: String, variantID: String, url: String, createdAt: Date) {
        self.checkoutID = checkoutID
        self.provider = provider
        self.appUserID = appUserID
        self.variantID = variantID
        self.url = url
        self.createdAt = createdAt
    }
}
