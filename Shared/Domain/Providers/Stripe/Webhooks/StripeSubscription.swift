import BillingModel
import Foundation
import JSONCodec

/// The facts of a Subscription (`customer.subscription.*`).
public struct StripeSubscription: Sendable, Hashable {
    public let id: String
    public let customerID: String?
    /// The customer's email, when `customer` came expanded (`expand[]=customer`); events carry only the id.
    public let customerEmail: String?
    /// From `livemode`; nil when the object does not say.
    public let mode: StripeMode?
    /// As sent; ``status`` is nil for one this version does not know.
    public let rawStatus: String
    public let status: StripeSubscriptionStatus?
    public let cancelAtPeriodEnd: Bool
    /// When a scheduled cancellation takes effect.
    public let cancelAt: Date?
    public let canceledAt: Date?
    public let endedAt: Date?
    public let trialStart: Date?
    public let trialEnd: Date?
    /// From the first item (API 2025-03-31.basil on), or the subscription itself (earlier versions).
    public let currentPeriodStart: Date?
    public let currentPeriodEnd: Date?
    public let priceID: String?
    /// The subscription item holding ``priceID`` (`si_…`): what a plan change updates.
    public let itemID: String?
    /// The subscription schedule it is attached to (`sub_sched_…`), when one is.
    public let scheduleID: String?
    public let productID: String?
    public let latestInvoiceID: String?
    public let created: Date?
    public let owner: StripeOwnerClaim
    /// `data.previous_attributes.status` of an update: the status it left (e.g. `trialing`).
    public let previousStatus: String?
    /// `data.previous_attributes.cancel_at_period_end` of an update: nil when the flag did not change.
    public let previousCancelAtPeriodEnd: Bool?

    /// Reads a Subscription object: an event's `data.object` (with its
    /// `data.previous_attributes`), or the API's answer to a retrieve or update.
    /// - Throws: ``StripeEventError/missingField(_:)`` without an `id` or a `status`.
    public init(_ object: JSONValue, previous: JSONValue? = nil) throws(StripeEventError) {
        id = try StripeJSON.required(StripeJSON.string(object["id"]), "data.object.id")
        customerID = StripeJSON.id(object["customer"])
        customerEmail = StripeJSON.string(object["customer", "email"])
        mode = object["livemode"]?.bool.map(StripeMode.init(livemode:))
        rawStatus = try StripeJSON.required(StripeJSON.string(object["status"]), "data.object.status")
        status = StripeSubscriptionStatus(rawValue: rawStatus)
        cancelAtPeriodEnd = object["cancel_at_period_end"]?.bool ?? false
        cancelAt = StripeJSON.date(object["cancel_at"])
        canceledAt = StripeJSON.date(object["canceled_at"])
        endedAt = StripeJSON.date(object["ended_at"])
        trialStart = StripeJSON.date(object["trial_start"])
        trialEnd = StripeJSON.date(object["trial_end"])
        let item = object["items", "data"]?.array?.first
        currentPeriodStart = StripeJSON.date(item?["current_period_start"]) ?? StripeJSON.date(object["current_period_start"])
        currentPeriodEnd = StripeJSON.date(item?["current_period_end"]) ?? StripeJSON.date(object["current_period_end"])
        priceID = StripeJSON.id(item?["price"])
        itemID = StripeJSON.string(item?["id"])
        scheduleID = StripeJSON.id(object["schedule"])
        productID = StripeJSON.id(item?["price"]?["product"])
        latestInvoiceID = StripeJSON.id(object["latest_invoice"])
        created = StripeJSON.date(object["created"])
        owner = StripeOwnerClaim(metadata: StripeJSON.metadata(object["metadata"]))
        previousStatus = StripeJSON.string(previous?["status"])
        previousCancelAtPeriodEnd = previous?["cancel_at_period_end"]?.bool
    }
}
