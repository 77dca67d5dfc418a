import Foundation
import BillingModel

/// One receiver an operator registered (`storefront endpoints add`): where
/// events (entitlement changes, purchase events) are sent, the secret that
/// signs them, and which types it wants.
public struct WebhookEndpoint: Sendable, Hashable {
    /// `ep_` and a random UUID.
    public var id: String
    /// An absolute `https://` (or, for local tests, `http://`) URL.
    public var url: String
    /// The current signing secret (`whsec_…`).
    public var secret: String
    /// The secret before the last rotation, still signing beside the new one
    /// until ``previousSecretExpiresAt``, so the receiver can switch without
    /// rejecting a request.
    public var previousSecret: String?
    public var previousSecretExpiresAt: Date?
    /// The event types it receives, by name (`entitlement.granted`,
    /// `purchase.redemption_issued`); empty: every type, including types
    /// added after it was registered.
    public var eventTypes: Set<String>
    /// A disabled endpoint keeps its queue; nothing is sent until it is enabled again.
    public var enabled: Bool
    public var createdAt: Date

    public init(
        id: String, url: String, secret: String, eventTypes: Set<String>, enabled: Bool = true, createdAt: Date = Date(),
        previousSecret: String? = nil, previousSecretExpiresAt: Date? = nil
    ) {
        self.id = id
        self.url = url
        self.secret = secret
        self.eventTypes = eventTypes
        self.enabled = enabled
        self.createdAt = createdAt
        self.previousSecret = previousSecret
        self.previousSecretExpiresAt = previousSecretExpiresAt
    }

    /// Whether this endpoint receives events of `type` (a type name such as `entitlement.granted`).
    public func wants(_ type: String) -> Bool { eventTypes.isEmpty || eventTypes.contains(type) }

    /// Every event type this build sends, by name: what `storefront endpoints add --types` accepts.
    public static var knownEventTypes: [String] {
        EntitlementChange.Kind.allCases.map(\.rawValue) + PurchaseEvent.Kind.known.map(\.rawValue)
    }

    /// The secrets that sign a request at `now`: the current one, and the previous one while it is honoured.
    public func signingSecrets(at now: Date) -> [String] {
        guard let previousSecret, let until = previousSecretExpiresAt, until > now else { return [secret] }
        return [secret, previousSecret]
    }
}
