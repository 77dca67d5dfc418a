import Foundation

/// One event queued for one endpoint, as the dispatcher works on it.
public struct Delivery: Sendable, Hashable {
    public var endpointID: String
    /// The change's id: `webhook-id`, the same on every attempt, so the receiver dedupes by it.
    public var eventID: String
    public var appUserID: String
    /// The `storefront.entitlements.v1` record, byte for byte.
    public var body: String
    /// Attempts made before this one.
    public var attempts: Int

    public init(endpointID: String, eventID: String, appUserID: String, body: String, attempts: Int) {
        self.endpointID = endpointID
        self.eventID = eventID
        self.appUserID = appUserID
        self.body = body
        self.attempts = attempts
    }
}

/// What one attempt came to.
public enum DeliveryOutcome: Sendable, Hashable {
    /// A 2xx answer.
    case delivered(status: Int)
    /// Another answer (`status`), or none (`status` nil: connection refused, timeout).
    case failed(status: Int?, reason: String)
}
