import BillingModel
import Foundation
import JSONCodec

/// The facts of a Dispute (`charge.dispute.*`): a chargeback on a charge.
public struct StripeDispute: Sendable, Hashable {
    public let id: String
    public let chargeID: String
    public let paymentIntentID: String?
    /// The disputed amount (what the customer gets back if the merchant loses).
    public let amount: Int64
    public let currency: String?
    /// `warning_needs_response`, `warning_under_review`, `warning_closed`,
    /// `needs_response`, `under_review`, `won`, `lost` (and `prevented`).
    public let status: String
    /// `fraudulent`, `product_not_received`, `general`, …
    public let reason: String?
    public let created: Date?

    init(_ object: JSONValue) throws(StripeEventError) {
        id = try StripeJSON.required(StripeJSON.string(object["id"]), "data.object.id")
        chargeID = try StripeJSON.required(StripeJSON.id(object["charge"]), "data.object.charge")
        paymentIntentID = StripeJSON.id(object["payment_intent"])
        amount = try StripeJSON.required(StripeJSON.amount(object["amount"]), "data.object.amount")
        currency = StripeJSON.currency(object["currency"])
        status = try StripeJSON.required(StripeJSON.string(object["status"]), "data.object.status")
        reason = StripeJSON.string(object["reason"])
        created = StripeJSON.date(object["created"])
    }

    /// Closed with the money gone back to the customer.
    public var isLost: Bool { status == "lost" }
    /// Closed with the money kept.
    public var isWon: Bool { status == "won" || status == "warning_closed" }
}
