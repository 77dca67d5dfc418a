import Foundation
import BillingModel

/// One receiver an operator registered (`storefront endpoints add`): where
/// events (entitlement changes, purchase events) are sent, the secret that
/// signs them, and which types it wants.
public struct WebhookEndpoint: Sendable, Hashable {
    /// `ep_` and a random UUID.
    public var id: String
    /// An absolute `https://` URL (`http://` only outside live mode; ``EndpointURLPolicy``).
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
    /// Whether it may be (or resolve to) a loopback, link-local, private or
    /// unspecified address (`storefront endpoints add --allow-private`):
    /// refused otherwise, when added and before each send, so the sender
    /// cannot be pointed at the deployment's own network.
    public var allowPrivateTargets = false
    /// The first failed attempt since its last delivered one; nil while healthy.
    public var failingSince: Date?
    /// Why it is disabled, when it is.
    public var disabledReason: DisabledReason?
    public var disabledAt: Date?

    /// Who disabled an endpoint.
    public enum DisabledReason: String, Sendable, Hashable {
        /// `storefront endpoints disable`: it gets no new events.
        case `operator`
        /// The circuit breaker (``DeliveryDispatcher/Settings/disableAfter``):
        /// its new events are recorded dead, for `storefront endpoints replay` once it is fixed.
        case failing
    }

    public init(
        id: String, url: String, secret: String, eventTypes: Set<String>, enabled: Bool = true, createdAt: Date = Date(),
        previousSecret: String? = nil, previousSecretExpiresAt: Date? = nil, allowPrivateTargets: Bool = false
    ) {
        self.id = id
        self.url = url
        self.secret = secret
        self.eventTypes = eventTypes
        self.enabled = enabled
        self.createdAt = createdAt
        self.previousSecret = previousSecret
        self.previousSecretExpiresAt = previousSecretExpiresAt
        self.allowPrivateTargets = allowPrivateTargets
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
