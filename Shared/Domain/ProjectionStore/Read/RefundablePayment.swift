import BillingModel

/// The payment a refund of one purchase gives money back for, as the
/// projection knows it: what the checkout checks a refund request against
/// before it calls the provider.
public struct RefundablePayment: Sendable, Hashable {
    public var provider: Provider
    public var purchaseType: PurchaseType
    /// The order's or subscription's provider id.
    public var purchaseID: String
    /// The order id for an order; a subscription's latest paid payment
    /// (`payments.payment_id`); nil when the subscription has no payment yet.
    public var paymentID: String?
    /// What the payment was, in minor units; nil when no event said.
    public var paid: Int64?
    /// What has been given back already, in minor units (0 when none is known).
    public var refunded: Int64
    public var currency: String?
    /// True when the projection already holds a refund of the payment: an
    /// order refunded in full, or any refund (partial or full) of the
    /// subscription's latest payment, whose refunds it does not sum.
    public var alreadyRefunded: Bool

    public init(
        provider: Provider, purchaseType: PurchaseType, purchaseID: String, paymentID: String?, paid: Int64?, refunded: Int64,
        currency: String?, alreadyRefunded: Bool
    ) {
        self.provider = provider
        self.purchaseType = purchaseType
        self.purchaseID = purchaseID
        self.paymentID = paymentID
        self.paid = paid
        self.refunded = refunded
        self.currency = currency
        self.alreadyRefunded = alreadyRefunded
    }

    /// What is left to give back, when the amount paid is known.
    public var left: Int64? { paid.map { max(0, $0 - refunded) } }
}
