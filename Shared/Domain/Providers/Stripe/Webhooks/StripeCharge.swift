import BillingModel
import Foundation
import JSONCodec

/// The facts of a Charge (`charge.refunded`): what was paid and what went back.
public struct StripeCharge: Sendable, Hashable {
    /// One refund of the charge (`refunds.data`, newest first, when Stripe includes it).
    public struct Refund: Sendable, Hashable {
        public let id: String
        public let amount: Int64
        public let created: Date?

        public init(id: String, amount: Int64, created: Date?) {
            self.id = id
            self.amount = amount
            self.created = created
        }
    }

    public let id: String
    public let paymentIntentID: String?
    /// `invoice` of API versions before 2025-03-31.basil (a subscription's charge).
    public let invoiceID: String?
    public let customerID: String?
    public let amount: Int64
    /// The running total of every refund so far.
    public let amountRefunded: Int64
    /// True once the whole amount is refunded.
    public let refunded: Bool
    public let currency: String?
    public let disputed: Bool
    /// When the charge was made (the payment's time, which a refund of it refers to).
    public let created: Date?
    public let refunds: [Refund]
    public let owner: StripeOwnerClaim

    init(_ object: JSONValue) throws(StripeEventError) {
        id = try StripeJSON.required(StripeJSON.string(object["id"]), "data.object.id")
        paymentIntentID = StripeJSON.id(object["payment_intent"])
        invoiceID = StripeJSON.id(object["invoice"])
        customerID = StripeJSON.id(object["customer"])
        amount = try StripeJSON.required(StripeJSON.amount(object["amount"]), "data.object.amount")
        amountRefunded = StripeJSON.amount(object["amount_refunded"]) ?? 0
        refunded = object["refunded"]?.bool ?? false
        currency = StripeJSON.currency(object["currency"])
        disputed = object["disputed"]?.bool ?? false
        created = StripeJSON.date(object["created"])
        refunds = (object["refunds", "data"]?.array ?? []).prefix(100).compactMap { refund in
            guard let id = StripeJSON.string(refund["id"]), let amount = StripeJSON.amount(refund["amount"]) else { return nil }
            return Refund(id: id, amount: amount, created: StripeJSON.date(refund["created"]))
        }
        owner = StripeOwnerClaim(metadata: StripeJSON.metadata(object["metadata"]))
    }

    /// Some but not all of the money went back.
    public var isPartiallyRefunded: Bool { amountRefunded > 0 && amountRefunded < amount }
}
