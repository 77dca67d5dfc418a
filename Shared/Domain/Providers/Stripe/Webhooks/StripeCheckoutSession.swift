import BillingModel
import JSONCodec

/// The facts of a Checkout Session (`checkout.session.completed`).
public struct StripeCheckoutSession: Sendable, Hashable {
    /// `payment` (a one-time purchase), `subscription` or `setup`.
    public enum Mode: String, Sendable, Hashable {
        case payment, subscription, setup
    }

    public let id: String
    public let mode: Mode
    /// `open`, `complete` or `expired`.
    public let status: String?
    /// `paid`, `unpaid` (an asynchronous method still settling) or `no_payment_required` (a free trial).
    public let paymentStatus: String?
    public let customerID: String?
    public let customerEmail: String?
    /// Set in `subscription` mode.
    public let subscriptionID: String?
    /// Set in `payment` mode.
    public let paymentIntentID: String?
    public let amountTotal: Int64?
    public let currency: String?
    public let owner: StripeOwnerClaim

    init(_ object: JSONValue) throws(StripeEventError) {
        id = try StripeJSON.required(StripeJSON.string(object["id"]), "data.object.id")
        mode = try StripeJSON.required(StripeJSON.string(object["mode"]).flatMap(Mode.init(rawValue:)), "data.object.mode")
        status = StripeJSON.string(object["status"])
        paymentStatus = StripeJSON.string(object["payment_status"])
        customerID = StripeJSON.id(object["customer"])
        customerEmail = StripeJSON.string(object["customer_details", "email"]) ?? StripeJSON.string(object["customer_email"])
        subscriptionID = StripeJSON.id(object["subscription"])
        paymentIntentID = StripeJSON.id(object["payment_intent"])
        amountTotal = StripeJSON.amount(object["amount_total"])
        currency = StripeJSON.currency(object["currency"])
        owner = StripeOwnerClaim(
            metadata: StripeJSON.metadata(object["metadata"]), clientReferenceID: StripeJSON.string(object["client_reference_id"]))
    }

    /// Whether the money is in: paid, or nothing to pay (a trial's start).
    public var isPaid: Bool { paymentStatus == "paid" || paymentStatus == "no_payment_required" }
}
