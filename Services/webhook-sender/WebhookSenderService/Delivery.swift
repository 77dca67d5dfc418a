import Foundation

/// One event queued for one endpoint, as the dispatcher works on it.
public struct Delivery: Sendable, Hashable {
    public var endpointID: String
    /// The event's id: `webhook-id`, the same on every attempt, so the receiver dedupes by it.
    public var eventID: String
    /// What orders the endpoint's queue (``OutgoingEvent/orderingKey``): the
    /// app user of an entitlement change, the purchase of a purchase event.
    public var orderingKey: String
    /// The topic record, byte for byte. It may hold a secret (a redemption
    /// link): never log it.
    public var body: String
    /// Attempts made before this one.
    public var attempts: Int

    public init(endpointID: String, eventID: String, orderingKey: String, body: String, attempts: Int) {
        self.endpointID = endpointID
        self.eventID = eventID
        self.orderingKey = orderingKey
        self.body = body
        self.attempts = attempts
    }
}

extension Delivery: CustomStringConvertible, CustomDebugStringConvertible {
    /// Without the body, so a delivery interpolated into a log line leaks nothing.
    public var description: String {
        "Delivery(endpoint: \(endpointID), event: \(eventID), attempts: \(attempts), body: \(body.utf8.count) bytes)"
    }

    public var debugDescription: String { description }
}

/// What one attempt came to.
public enum DeliveryOutcome: Sendable, Hashable {
    /// A 2xx answer.
    case delivered(status: Int)
    /// Another answer (`status`), or none (`status` nil: connection refused, timeout).
    case failed(status: Int?, reason: String)
}
