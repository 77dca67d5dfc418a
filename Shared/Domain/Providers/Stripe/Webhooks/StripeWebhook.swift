import BillingModel
import Foundation
import JSONCodec

/// Turns a Stripe event (already verified and read into a ``StripeEvent``)
/// into the provider-neutral ``BillingEvent`` the projector folds. Pure: no
/// I/O, no signature check, no ownership check (the `Webhooks` module's
/// `OwnershipProof` keeps ``BillingEvent/appUserID`` only with a valid proof,
/// read from ``BillingEvent/customData``).
///
/// The `Provider` value is a parameter: until the provider seam names Stripe,
/// the wiring passes it in (docs/providers/stripe.md).
///
/// Kinds, in the vocabulary the other providers already use:
///
/// | Stripe event | kind |
/// | --- | --- |
/// | `checkout.session.completed`, `payment` mode | `orderCreated` (the one-time purchase, with its amount) |
/// | `checkout.session.completed`, `subscription` mode | `subscriptionCreated` (the checkout's claim on the subscription; no amount: `invoice.paid` carries the money) |
/// | `customer.subscription.created` | `subscriptionCreated` |
/// | `customer.subscription.updated` | `subscriptionCancelled` when `cancel_at_period_end` turned on, `subscriptionResumed` when it turned off, else `subscriptionUpdated` |
/// | `customer.subscription.deleted` | `subscriptionExpired` (Stripe's `canceled` is terminal) |
/// | `customer.subscription.paused` / `resumed` | `subscriptionPaused` / `subscriptionUnpaused` |
/// | `invoice.paid` | `paymentSucceeded`, or `paymentRecovered` after failed attempts (`attempt_count` > 1) |
/// | `invoice.payment_failed` | `paymentFailed` |
/// | `charge.refunded` | `paymentRefunded` when the charge names an invoice (before 2025-03-31.basil), else `orderRefunded` |
/// | `charge.dispute.created` / `closed` | `disputeCreated` / `disputeResolved` |
/// | anything else | `unknown(<type>)` |
public enum StripeWebhook {
    /// Reads and normalises one verified body.
    /// - Throws: ``StripeEventError`` for a body that is not a Stripe event Storefront can read.
    public static func normalize(body: [UInt8], provider: Provider) throws(StripeEventError) -> BillingEvent {
        normalize(try StripeEvent.parse(body), provider: provider)
    }

    /// Normalises one verified body already parsed (the seam's `WebhookFormat.normalize(root:)`).
    /// - Throws: ``StripeEventError`` for a value that is not a Stripe event Storefront can read.
    public static func normalize(root: JSONValue, provider: Provider) throws(StripeEventError) -> BillingEvent {
        normalize(try StripeEvent(root), provider: provider)
    }

    /// The delivery's dedup key: `<provider>:<evt_…>`. Stripe sends one event
    /// id per occurrence and keeps it across its retries and manual resends.
    public static func dedupKey(_ event: StripeEvent, provider: Provider) -> String {
        "\(provider.rawValue):\(event.id)"
    }

    /// The kind of an event (see the table above).
    public static func kind(of event: StripeEvent) -> BillingEventKind {
        switch event.payload {
        case .checkoutSession(let session): session.mode == .subscription ? .subscriptionCreated : .orderCreated
        case .subscription(let subscription): subscriptionKind(event.type, subscription)
        case .invoice(let invoice):
            if event.type == .invoicePaymentFailed { .paymentFailed } else { (invoice.attemptCount ?? 1) > 1 ? .paymentRecovered : .paymentSucceeded }
        case .charge(let charge): charge.invoiceID == nil ? .orderRefunded : .paymentRefunded
        case .dispute: event.type == .chargeDisputeClosed ? .disputeResolved : .disputeCreated
        case .unhandled: .unknown(event.rawType)
        }
    }

    private static func subscriptionKind(_ type: StripeEventType?, _ subscription: StripeSubscription) -> BillingEventKind {
        switch type {
        case .subscriptionCreated: .subscriptionCreated
        case .subscriptionDeleted: .subscriptionExpired
        case .subscriptionPaused: .subscriptionPaused
        case .subscriptionResumed: .subscriptionUnpaused
        default:
            switch (subscription.previousCancelAtPeriodEnd, subscription.cancelAtPeriodEnd) {
            case (false?, true): .subscriptionCancelled
            case (true?, false): .subscriptionResumed
            default: .subscriptionUpdated
            }
        }
    }

    /// The neutral event: who (the owner claim and its metadata as custom
    /// data, the customer), what (ids, status, product and price), money,
    /// and the provider's times. Stripe objects carry no `updated` time, so
    /// the event's `created` orders it; the entity key is the event's
    /// ordering key (``StripeEvent/orderingKey``) under the provider's name.
    public static func normalize(_ event: StripeEvent, provider: Provider) -> BillingEvent {
        var billing = BillingEvent(kind: kind(of: event), provider: provider, providerEventName: event.rawType, entityKey: "")
        billing.testMode = event.mode.isTest
        billing.orderingTimestamp = event.created
        billing.updatedAt = event.created
        if let owner = event.owner {
            billing.customData = owner.metadata
            billing.appUserID = owner.appUserID
            billing.checkoutID = owner.checkoutID
        }
        switch event.payload {
        case .checkoutSession(let session): read(session, into: &billing)
        case .subscription(let subscription): read(subscription, into: &billing)
        case .invoice(let invoice): read(invoice, paid: event.type == .invoicePaid, at: event.created, into: &billing)
        case .charge(let charge): read(charge, into: &billing)
        case .dispute(let dispute): read(dispute, closed: event.type == .chargeDisputeClosed, into: &billing)
        case .unhandled: break
        }
        billing.entityKey = TopicKey.make(provider, event.orderingKey)
        return billing
    }

    static func read(_ session: StripeCheckoutSession, into event: inout BillingEvent) {
        event.customerID = session.customerID
        event.customerEmail = session.customerEmail
        event.currency = session.currency
        event.variantID = session.owner.metadata[StripeMetadataKeys.priceID]
        event.planName = session.owner.metadata[StripeMetadataKeys.planName]
        event.productID = session.owner.metadata[StripeMetadataKeys.productID]
        switch session.mode {
        case .subscription:
            event.subscriptionID = session.subscriptionID
            event.transactionReference = session.id
        case .payment, .setup:
            // Only a one-time purchase takes the session's payment status: in
            // subscription mode `status` is the subscription's own word.
            event.status = session.paymentStatus
            event.orderID = session.paymentIntentID ?? session.id
            // A payment is referenced by its PaymentIntent everywhere (its
            // disputes and the invoice that a renewal's refunds go through).
            event.transactionReference = event.orderID
            event.amount = session.amountTotal
            if session.isPaid { event.paidAt = event.orderingTimestamp }
        }
    }

    static func read(_ subscription: StripeSubscription, into event: inout BillingEvent) {
        event.subscriptionID = subscription.id
        event.planName = subscription.owner.metadata[StripeMetadataKeys.planName]
        event.customerID = subscription.customerID
        event.customerEmail = subscription.customerEmail
        event.status = subscription.rawStatus
        event.productID = subscription.productID
        event.variantID = subscription.priceID
        event.createdAt = subscription.created
        event.trialEndsAt = subscription.trialEnd
        let scheduledEnd = subscription.cancelAt ?? (subscription.cancelAtPeriodEnd ? subscription.currentPeriodEnd : nil)
        event.cancelled = subscription.cancelAtPeriodEnd || scheduledEnd != nil
        event.endsAt = subscription.endedAt ?? scheduledEnd
        // Only a subscription that will charge again renews (past due: Stripe is still retrying).
        if event.cancelled == false, let status = subscription.status, [.trialing, .active, .pastDue].contains(status) {
            event.renewsAt = subscription.currentPeriodEnd
            event.nextPaymentDate = subscription.currentPeriodEnd
        }
    }

    static func read(_ invoice: StripeInvoice, paid: Bool, at time: Date, into event: inout BillingEvent) {
        event.invoiceID = invoice.id
        event.subscriptionID = invoice.subscriptionID
        event.customerID = invoice.customerID
        event.status = invoice.status
        event.amount = paid ? (invoice.amountPaid ?? invoice.amountDue) : invoice.amountDue
        event.currency = invoice.currency
        event.variantID = invoice.priceID
        event.productID = invoice.productID
        event.orderID = invoice.paymentIntentID
        event.transactionReference = invoice.paymentIntentID
        if paid {
            event.paidAt = time
            event.renewsAt = invoice.periodEnd
        } else {
            event.nextPaymentDate = invoice.nextPaymentAttempt
        }
    }

    static func read(_ charge: StripeCharge, into event: inout BillingEvent) {
        event.orderID = charge.paymentIntentID ?? charge.id
        event.transactionReference = charge.paymentIntentID ?? charge.id
        event.invoiceID = charge.invoiceID
        event.customerID = charge.customerID
        event.amount = charge.amount
        event.createdAt = charge.created
        // A running total, as Lemon Squeezy's `refunded_amount`.
        event.refundedAmount = charge.amountRefunded > 0 ? charge.amountRefunded : nil
        event.currency = charge.currency
        event.status = charge.refunded ? "refunded" : charge.isPartiallyRefunded ? "partially_refunded" : nil
    }

    static func read(_ dispute: StripeDispute, closed: Bool, into event: inout BillingEvent) {
        event.orderID = dispute.paymentIntentID ?? dispute.chargeID
        // The payment it disputes, as the purchase and the invoice name it.
        event.transactionReference = dispute.paymentIntentID ?? dispute.chargeID
        event.amount = dispute.amount
        event.currency = dispute.currency
        event.status = dispute.status
        event.createdAt = dispute.created
        if closed {
            // Stripe's own outcome (`won`, `lost`, `warning_closed`): the money
            // went back to the customer only when it is `lost`, Storefront's
            // ``BillingEvent/disputeReturnedTheMoney``.
            event.disputeResolution = dispute.isLost ? BillingEvent.disputeReturnedTheMoney : dispute.status
            if dispute.isLost { event.refundedAmount = dispute.amount }
        }
    }
}
