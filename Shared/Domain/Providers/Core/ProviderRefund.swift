import BillingModel

/// One refund to ask a provider for: which payment, how much, and the key
/// that makes a repeat of the same request act once.
public struct RefundRequest: Sendable, Hashable {
    /// What the payment belongs to: an order is refunded as a whole order,
    /// a subscription's payment as that payment.
    public var purchaseType: PurchaseType
    /// The purchase's provider id (order or subscription), as the projection holds it.
    public var purchaseID: String
    /// The payment to refund as the projection names it: the order id for an
    /// order; for a subscription, its latest paid payment (Lemon Squeezy
    /// subscription-invoice id, Paystack transaction id, Stripe invoice `in_…`).
    public var paymentID: String
    /// Minor units (cents, kobo); nil refunds all that is left of the payment.
    public var amount: Int64?
    /// Stable per intended refund (Storefront's command id): providers that
    /// take an idempotency key (Stripe) get it, so a retried call refunds once.
    public var idempotencyKey: String

    public init(purchaseType: PurchaseType, purchaseID: String, paymentID: String, amount: Int64?, idempotencyKey: String) {
        self.purchaseType = purchaseType
        self.purchaseID = purchaseID
        self.paymentID = paymentID
        self.amount = amount
        self.idempotencyKey = idempotencyKey
    }
}

/// What a provider answered to a refund it accepted. Access does not change
/// here: the provider's refund webhook (or the reconciler's fetch) carries the
/// money back to the projection, where the money-back rules apply.
public struct ProviderRefund: Sendable, Hashable, Codable {
    public var provider: Provider
    /// The provider's refund id when it gives one (Stripe `re_…`, Paystack's
    /// numeric refund id); Lemon Squeezy answers with the order or invoice, so
    /// it is that object's id.
    public var id: String?
    /// The provider's own word for the refund's state (`succeeded`, `pending`,
    /// `processed`, Lemon Squeezy's order status `refunded`/`partial_refund`).
    public var status: String?
    /// Minor units refunded by this call when the provider says; nil when it does not.
    public var amount: Int64?
    public var currency: String?

    public init(provider: Provider, id: String?, status: String?, amount: Int64?, currency: String?) {
        self.provider = provider
        self.id = id
        self.status = status
        self.amount = amount
        self.currency = currency
    }
}
