import Entitlements
import Foundation
import JSONCodec

/// The facts of a Subscription (`customer.subscription.*`).
public struct StripeSubscription: Sendable, Hashable {
    public let id: String
    public let customerID: String?
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
    public let productID: String?
    public let latestInvoiceID: String?
    public let created: Date?
    public let owner: StripeOwnerClaim
    /// `data.previous_attributes.status` of an update: the status it left (e.g. `trialing`).
    public let previousStatus: String?

    init(_ object: JSONValue, previous: JSONValue?) throws(StripeEventError) {
        id = try StripeJSON.required(StripeJSON.string(object["id"]), "data.object.id")
        customerID = StripeJSON.id(object["customer"])
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
        productID = StripeJSON.id(item?["price"]?["product"])
        latestInvoiceID = StripeJSON.id(object["latest_invoice"])
        created = StripeJSON.date(object["created"])
        owner = StripeOwnerClaim(metadata: StripeJSON.metadata(object["metadata"]))
        previousStatus = StripeJSON.string(previous?["status"])
    }

    /// What the status means for access, with `cancel_at_period_end`.
    public var phase: SubscriptionPhase {
        StripeSubscriptionStatus.phase(of: rawStatus, cancelAtPeriodEnd: cancelAtPeriodEnd)
    }
}
