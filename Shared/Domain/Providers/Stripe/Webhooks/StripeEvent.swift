import BillingModel
import Foundation
import JSONCodec

/// One Stripe webhook event, read once into plain values.
///
/// ``id`` (`evt_…`) is what deduplicates a retried or duplicated delivery;
/// ``orderingKey`` is the purchase the event belongs to, so one purchase's
/// events can be kept in order: the subscription for subscription and
/// invoice events, the payment (PaymentIntent, else the charge) for a
/// one-time purchase, its refunds and disputes.
public struct StripeEvent: Sendable, Hashable {
    /// What `data.object` held, read per event type.
    public enum Payload: Sendable, Hashable {
        case checkoutSession(StripeCheckoutSession)
        case subscription(StripeSubscription)
        case invoice(StripeInvoice)
        case charge(StripeCharge)
        case dispute(StripeDispute)
        /// A type Storefront does not act on; acknowledged and otherwise ignored.
        case unhandled(objectType: String?)
    }

    public let id: String
    /// The type as sent (``type`` is nil for one outside ``StripeEventType``).
    public let rawType: String
    public let type: StripeEventType?
    public let created: Date
    public let mode: StripeMode
    /// The API version the event's objects are rendered in (the endpoint's or the account's).
    public let apiVersion: String?
    public let orderingKey: String
    public let payload: Payload

    /// Reads an event from the raw body (already verified by ``StripeSignatureVerifier``).
    public static func parse(_ body: [UInt8]) throws(StripeEventError) -> StripeEvent {
        let json: JSONValue
        do { json = try JSONValue.parse(body) } catch { throw .notJSON }
        return try StripeEvent(json)
    }

    /// Reads an event already parsed (a webhook format that parses once, then reads).
    public init(_ json: JSONValue) throws(StripeEventError) {
        guard json["object"] == .string("event") else { throw .notAnEvent }
        id = try StripeJSON.required(StripeJSON.string(json["id"]), "id")
        rawType = try StripeJSON.required(StripeJSON.string(json["type"]), "type")
        type = StripeEventType(rawValue: rawType)
        created = try StripeJSON.required(StripeJSON.date(json["created"]), "created")
        mode = StripeMode(livemode: json["livemode"]?.bool ?? false)
        apiVersion = StripeJSON.string(json["api_version"])
        let object = try StripeJSON.required(json["data", "object"].flatMap { $0.object == nil ? nil : $0 }, "data.object")
        let objectType = StripeJSON.string(object["object"])
        guard let type else {
            payload = .unhandled(objectType: objectType)
            orderingKey = StripeJSON.id(object["id"]) ?? id
            return
        }
        try Self.expect(type.objectType, found: objectType)
        switch type {
        case .checkoutSessionCompleted:
            let session = try StripeCheckoutSession(object)
            payload = .checkoutSession(session)
            orderingKey = session.subscriptionID ?? session.paymentIntentID ?? session.id
        case .subscriptionCreated, .subscriptionUpdated, .subscriptionDeleted, .subscriptionPaused, .subscriptionResumed:
            let subscription = try StripeSubscription(object, previous: json["data", "previous_attributes"])
            payload = .subscription(subscription)
            orderingKey = subscription.id
        case .invoicePaid, .invoicePaymentFailed:
            let invoice = try StripeInvoice(object)
            payload = .invoice(invoice)
            orderingKey = invoice.subscriptionID ?? invoice.paymentIntentID ?? invoice.id
        case .chargeRefunded:
            let charge = try StripeCharge(object)
            payload = .charge(charge)
            orderingKey = charge.paymentIntentID ?? charge.id
        case .chargeDisputeCreated, .chargeDisputeClosed:
            let dispute = try StripeDispute(object)
            payload = .dispute(dispute)
            orderingKey = dispute.paymentIntentID ?? dispute.chargeID
        }
    }

    private static func expect(_ expected: String, found: String?) throws(StripeEventError) {
        guard found == expected else { throw .unexpectedObject(expected: expected, found: found ?? "nothing") }
    }

    /// Who the purchase claims to belong to, where the object carries a claim.
    public var owner: StripeOwnerClaim? {
        switch payload {
        case .checkoutSession(let session): session.owner
        case .subscription(let subscription): subscription.owner
        case .invoice(let invoice): invoice.owner
        case .charge(let charge): charge.owner
        case .dispute, .unhandled: nil
        }
    }
}

extension StripeEventType {
    /// The `object` of `data.object` for events of this type.
    var objectType: String {
        switch self {
        case .checkoutSessionCompleted: "checkout.session"
        case .subscriptionCreated, .subscriptionUpdated, .subscriptionDeleted, .subscriptionPaused, .subscriptionResumed: "subscription"
        case .invoicePaid, .invoicePaymentFailed: "invoice"
        case .chargeRefunded: "charge"
        case .chargeDisputeCreated, .chargeDisputeClosed: "dispute"
        }
    }
}
