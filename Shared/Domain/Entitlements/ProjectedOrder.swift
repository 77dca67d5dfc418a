import Foundation
import BillingModel

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
    /// Part of the price was given back (``AccessPolicy/partialRefund`` decides).
    public var partiallyRefundedAt: Date?
    /// A dispute (chargeback) is open since then.
    public var disputeOpenedAt: Date?
    /// Set when the order is a subscription's first payment (Lemon Squeezy
    /// sends `order_created` for it too): it is part of that subscription.
    public var subscriptionID: String?
    /// The order pays a subscription's first period: its checkout sold a
    /// subscription. Until the subscription names it (``subscriptionID``)
    /// it grants nothing on its own; the subscription grants, with its end.
    public var opensSubscription = false
    /// Test-mode order; nil when the provider did not say.
    public var testMode: Bool?

    public init(provider: Provider, orderID: String, status: String) {
        self.provider = provider
        self.orderID = orderID
        self.status = status
    }

    /// Paid and never refunded: the buyer owns what it sold.
    public var grantsAccess: Bool { status == "paid" && refundedAt == nil }
}
