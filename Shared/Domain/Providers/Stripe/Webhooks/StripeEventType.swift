import BillingModel

/// The Stripe event types Storefront acts on. Anything else is acknowledged
/// and kept as ``StripeEvent/Payload/unhandled(objectType:)``.
public enum StripeEventType: String, Sendable, Hashable, CaseIterable {
    /// A hosted Checkout was paid: the purchase and its owner (`client_reference_id`, `metadata`).
    case checkoutSessionCompleted = "checkout.session.completed"
    case subscriptionCreated = "customer.subscription.created"
    /// Every status change, including `trialing` → `active` and `cancel_at_period_end` set or cleared.
    case subscriptionUpdated = "customer.subscription.updated"
    /// The subscription ended (`status: canceled`).
    case subscriptionDeleted = "customer.subscription.deleted"
    case subscriptionPaused = "customer.subscription.paused"
    case subscriptionResumed = "customer.subscription.resumed"
    /// A subscription's invoice was paid: the first period or a renewal.
    case invoicePaid = "invoice.paid"
    /// A charge for an invoice failed; Stripe retries per its settings.
    case invoicePaymentFailed = "invoice.payment_failed"
    /// Money given back, in part or in full (`amount_refunded` is the running total).
    case chargeRefunded = "charge.refunded"
    case chargeDisputeCreated = "charge.dispute.created"
    /// A dispute's outcome: `won` (the money stays) or `lost` (it went back to the customer).
    case chargeDisputeClosed = "charge.dispute.closed"
}
