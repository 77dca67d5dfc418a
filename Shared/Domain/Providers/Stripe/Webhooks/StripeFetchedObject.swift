import BillingModel
import Foundation
import JSONCodec

/// Reads an object the reconciler fetched from Stripe's API (the same
/// objects its events carry in `data.object`) into a ``BillingEvent``, as a
/// webhook about it would be read. What a provider seam's "fetched objects
/// as events" hook calls (docs/providers/stripe.md).
///
/// - A Subscription is `subscriptionObserved` at the fetch's start: it
///   reflects every change Stripe made before then.
/// - A complete Checkout Session reads as its `checkout.session.completed`
///   would (`orderCreated` in `payment` mode once paid, the claim on the
///   subscription in `subscription` mode); an open or expired one is unknown.
/// - A succeeded PaymentIntent is `orderCreated` with what was received and
///   the claim its metadata carries (`payment_intent_data[metadata]`).
/// - An Invoice (fetched with `expand[]=payments`) is `invoiceUpdated`,
///   naming its subscription and the PaymentIntent that paid it: from API
///   `2025-03-31.basil` on, no webhook links the two, and a refund or a
///   dispute of a renewal names only the PaymentIntent.
/// - Anything else is `.unknown`: logged and counted, never applied.
///
/// Stripe objects carry no update time, so each is ordered at the fetch's start.
public enum StripeFetchedObject {
    /// - Parameters:
    ///   - body: the API's answer, byte for byte.
    ///   - name: the event name it is logged under (e.g. `storefront.snapshot.subscription`).
    ///   - provider: the value Storefront names Stripe by.
    ///   - fetchedAt: when the fetch started.
    /// - Throws: ``StripeEventError`` for a body that is not a Stripe object Storefront can read.
    public static func normalize(_ body: [UInt8], name: String, provider: Provider, fetchedAt: Date) throws(StripeEventError) -> BillingEvent {
        let object: JSONValue
        do { object = try JSONValue.parse(body) } catch { throw .notJSON }
        guard object.object != nil, let type = StripeJSON.string(object["object"]) else { throw .missingField("object") }
        var event = BillingEvent(kind: .unknown("\(name).\(type)"), provider: provider, providerEventName: name, entityKey: "")
        event.orderingTimestamp = fetchedAt
        if let livemode = object["livemode"]?.bool { event.testMode = !livemode }
        var key = StripeJSON.id(object["id"]) ?? "unknown"
        switch type {
        case "subscription":
            let subscription = try StripeSubscription(object)
            claim(subscription.owner, into: &event)
            StripeWebhook.read(subscription, into: &event)
            event.kind = .subscriptionObserved
        case "checkout.session":
            let session = try StripeCheckoutSession(object)
            claim(session.owner, into: &event)
            StripeWebhook.read(session, into: &event)
            key = session.subscriptionID ?? session.paymentIntentID ?? session.id
            guard session.status == "complete", session.isPaid else {
                event.kind = .unknown("\(name).\(session.status ?? "unknown")")
                break
            }
            event.kind = session.mode == .subscription ? .subscriptionCreated : .orderCreated
        case "payment_intent":
            try read(paymentIntent: object, name: name, into: &event)
        case "invoice":
            // Fetched with its payments expanded: the link from the subscription
            // to the PaymentIntent that paid it, which refunds and disputes name.
            let invoice = try StripeInvoice(object)
            claim(invoice.owner, into: &event)
            StripeWebhook.read(invoice, paid: invoice.status == "paid", at: fetchedAt, into: &event)
            key = invoice.subscriptionID ?? invoice.id
            event.kind = .invoiceUpdated
        default:
            break
        }
        event.entityKey = TopicKey.make(provider, key)
        return event
    }

    private static func claim(_ owner: StripeOwnerClaim, into event: inout BillingEvent) {
        event.customData = owner.metadata
        event.appUserID = owner.appUserID
        event.checkoutID = owner.checkoutID
    }

    /// A PaymentIntent: the one-time purchase's payment, its claim in `metadata`.
    private static func read(paymentIntent object: JSONValue, name: String, into event: inout BillingEvent) throws(StripeEventError) {
        let id = try StripeJSON.required(StripeJSON.string(object["id"]), "id")
        let status = StripeJSON.string(object["status"]) ?? "unknown"
        claim(StripeOwnerClaim(metadata: StripeJSON.metadata(object["metadata"])), into: &event)
        event.orderID = id
        event.status = status
        event.customerID = StripeJSON.id(object["customer"])
        event.amount = StripeJSON.amount(object["amount_received"]) ?? StripeJSON.amount(object["amount"])
        event.currency = StripeJSON.currency(object["currency"])
        event.createdAt = StripeJSON.date(object["created"])
        event.transactionReference = id
        guard status == "succeeded" else {
            event.kind = .unknown("\(name).\(status)")
            return
        }
        event.kind = .orderCreated
        event.paidAt = event.createdAt
    }
}
