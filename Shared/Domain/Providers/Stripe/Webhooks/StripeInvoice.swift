import BillingModel
import Foundation
import JSONCodec

/// The facts of an Invoice (`invoice.paid`, `invoice.payment_failed`).
public struct StripeInvoice: Sendable, Hashable {
    public let id: String
    /// `parent.subscription_details.subscription` (API 2025-03-31.basil on) or `subscription` (earlier).
    public let subscriptionID: String?
    public let customerID: String?
    /// `draft`, `open`, `paid`, `uncollectible` or `void`.
    public let status: String?
    /// `subscription_create` (the first period), `subscription_cycle` (a renewal), `subscription_update`, `manual`, …
    public let billingReason: String?
    public let amountDue: Int64?
    public let amountPaid: Int64?
    public let currency: String?
    /// The period the plan's line bills (``planLine(_:)``; a subscription
    /// line's period, not the invoice's own `period_*`).
    public let periodStart: Date?
    public let periodEnd: Date?
    /// The plan's line's price and product (`pricing.price_details` from 2025-03-31.basil, `price` before).
    public let priceID: String?
    public let productID: String?
    public let attemptCount: Int64?
    /// When Stripe retries a failed charge next; nil when it will not.
    public let nextPaymentAttempt: Date?
    /// `payment_intent` of API versions before 2025-03-31.basil (later ones list payments separately).
    public let paymentIntentID: String?
    /// The subscription's metadata at the time of the invoice (`parent.subscription_details.metadata`,
    /// before 2025-03-31.basil `subscription_details.metadata`).
    public let owner: StripeOwnerClaim

    init(_ object: JSONValue) throws(StripeEventError) {
        id = try StripeJSON.required(StripeJSON.string(object["id"]), "data.object.id")
        let details = object["parent", "subscription_details"] ?? object["subscription_details"]
        subscriptionID = StripeJSON.id(details?["subscription"]) ?? StripeJSON.id(object["subscription"])
        customerID = StripeJSON.id(object["customer"])
        status = StripeJSON.string(object["status"])
        billingReason = StripeJSON.string(object["billing_reason"])
        amountDue = StripeJSON.amount(object["amount_due"])
        amountPaid = StripeJSON.amount(object["amount_paid"])
        currency = StripeJSON.currency(object["currency"])
        let line = Self.planLine(object["lines", "data"]?.array ?? [])
        periodStart = StripeJSON.date(line?["period", "start"])
        periodEnd = StripeJSON.date(line?["period", "end"])
        priceID = StripeJSON.id(line?["pricing", "price_details", "price"]) ?? StripeJSON.id(line?["price"])
        productID = StripeJSON.id(line?["pricing", "price_details", "product"]) ?? StripeJSON.id(line?["price", "product"])
        attemptCount = object["attempt_count"]?.int64
        nextPaymentAttempt = StripeJSON.date(object["next_payment_attempt"])
        // Before `2025-03-31.basil` the invoice names its PaymentIntent; from it
        // on only its `payments` do, when a fetch expands them (a paid one first).
        let payments = object["payments", "data"]?.array ?? []
        let paidPayment = payments.first { $0["status"]?.string == "paid" } ?? payments.first
        paymentIntentID = StripeJSON.id(object["payment_intent"]) ?? StripeJSON.id(paidPayment?["payment", "payment_intent"])
        owner = StripeOwnerClaim(metadata: StripeJSON.metadata(details?["metadata"]))
    }

    /// The line that bills the plan the subscription is on after this
    /// invoice. A plan change's invoice lists the unused time of the old
    /// price first, as a negative proration, then the new price (in full,
    /// or its remaining time): read as the invoice's plan, that first line
    /// would move the subscription back to the old price and its period.
    /// So: a line that is not a proration, else a charged proration, the
    /// one whose period ends last; nil when every line is a credit.
    static func planLine(_ lines: [JSONValue]) -> JSONValue? {
        func isProration(_ line: JSONValue) -> Bool {
            let flag =
                line["parent", "subscription_item_details", "proration"] ?? line["parent", "invoice_item_details", "proration"] ?? line["proration"]
            return flag?.bool ?? false
        }
        let charged = lines.filter { (StripeJSON.amount($0["amount"]) ?? 0) >= 0 }
        let pool = charged.contains { !isProration($0) } ? charged.filter { !isProration($0) } : charged
        return pool.max { (StripeJSON.date($0["period", "end"]) ?? .distantPast) < (StripeJSON.date($1["period", "end"]) ?? .distantPast) }
    }

    /// The first period's invoice, not a renewal.
    public var isFirstPayment: Bool { billingReason == "subscription_create" }
}
