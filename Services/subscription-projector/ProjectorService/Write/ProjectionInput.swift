import Foundation
import BillingModel
import Entitlements

/// One webhook delivery, normalised, with where it came from.
public struct WebhookDelivery: Sendable, Hashable {
    /// The envelope id: the delivery's dedup key.
    public var dedupKey: String
    public var event: BillingEvent
    public var receivedAt: Date
    /// The provider's body bytes, kept in the log for audits and replays.
    public var payload: [UInt8]
    public var sourcePartition: Int32
    public var sourceOffset: Int64

    public init(dedupKey: String, event: BillingEvent, receivedAt: Date, payload: [UInt8], sourcePartition: Int32, sourceOffset: Int64) {
        self.dedupKey = dedupKey
        self.event = event
        self.receivedAt = receivedAt
        self.payload = payload
        self.sourcePartition = sourcePartition
        self.sourceOffset = sourceOffset
    }
}

/// What the projector writes: one understood record of any of its topics.
public enum ProjectionInput: Sendable, Hashable {
    case webhook(WebhookDelivery)
    case checkout(CheckoutCreatedRecord)
    case command(SubscriptionCommand)
    /// An anonymous user merged into a signed-in one (``UserMergeCommand``).
    case userMerge(UserMergeCommand)
    /// A promotional grant given or revoked (``GrantCommand``).
    case grant(GrantCommand)
}

/// What one ``ProjectionWriter/write(_:)`` did.
public struct ProjectionWriteResult: Sendable, Hashable {
    /// Webhook deliveries logged for the first time.
    public var newEvents = 0
    /// Webhook deliveries whose dedup key was already logged (or repeated in the batch).
    public var duplicateEvents = 0
    /// Checkout and command records written for the first time.
    public var newRecords = 0
    /// Checkout and command records already present.
    public var duplicateRecords = 0
    /// Subscriptions re-folded and upserted.
    public var subscriptionsProjected = 0
    /// Dedup keys of new refunds and disputes whose transaction no logged
    /// charge, order or invoice has: logged (and applied when the purchase
    /// arrives), and reported so that an operator sees money given back for
    /// a purchase Storefront does not know.
    public var unlinkedMoneyBack: [String] = []
    /// Dedup keys of logged events that no longer read back and were left out
    /// of a fold (see ``ProjectionWriter/refold(_:batchKeys:unreadable:on:)``).
    public var unreadableLoggedEvents: [String] = []

    public init() {}
}
