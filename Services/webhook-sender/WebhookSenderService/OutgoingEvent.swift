import BillingModel

/// One topic record the sender queues, whichever topic it came from: what
/// the queue needs of it, and its bytes.
public struct OutgoingEvent: Sendable, Hashable {
    /// `webhook-id`; with the endpoint, the queue's dedup key.
    public var id: String
    /// The type name endpoints filter on (``WebhookEndpoint/wants(_:)``).
    public var type: String
    /// Events with the same key are sent to an endpoint in the order they
    /// were read, each after the one before was delivered or dead.
    public var orderingKey: String
    /// The record's value, byte for byte: the webhook's body.
    public var body: String

    public init(id: String, type: String, orderingKey: String, body: String) {
        self.id = id
        self.type = type
        self.orderingKey = orderingKey
        self.body = body
    }

    /// A `storefront.entitlements.v1` record: in order per app user.
    public init(_ change: EntitlementChange, body: String) {
        self.init(id: change.id, type: change.type.rawValue, orderingKey: change.appUserID, body: body)
    }

    /// A `storefront.purchase-events.v1` record: in order per purchase (its key).
    public init(_ event: PurchaseEvent, body: String) {
        self.init(id: event.id, type: event.type.rawValue, orderingKey: event.key, body: body)
    }
}

extension OutgoingEvent: CustomStringConvertible, CustomDebugStringConvertible {
    /// Without the body (a purchase event's holds a redemption link).
    public var description: String { "OutgoingEvent(id: \(id), type: \(type), body: \(body.utf8.count) bytes)" }

    public var debugDescription: String { description }
}
