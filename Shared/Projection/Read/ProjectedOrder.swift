import Foundation
import Models

/// A one-time purchase as the projector recorded it (`orders` table).
public struct ProjectedOrder: Sendable, Hashable {
    public var provider: Provider
    public var orderID: String
    public var appUserID: String?
    public var customerEmail: String?
    public var productID: String?
    public var variantID: String?
    public var productName: String?
    /// `paid`, then `refunded` (terminal).
    public var status: String
    public var paidAt: Date?
    public var refundedAt: Date?

    public init(provider: Provider, orderID: String, status: String) {
        self.provider = provider
        self.orderID = orderID
        self.status = status
    }

    /// Paid and never refunded: the buyer owns what it sold.
    public var grantsAccess: Bool { status == "paid" && refundedAt == nil }
}
