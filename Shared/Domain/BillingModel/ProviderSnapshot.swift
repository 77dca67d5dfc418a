import Foundation

/// The value of a `storefront.snapshots.v1` record: the provider's own view
/// of one object, fetched by the reconciler (docs/architecture.md, "Kafka topics"). Key: as the
/// webhooks' (``TopicKey/snapshot(_:entity:entityID:customerID:)``), so a
/// snapshot and the webhooks of the same entity stay on one partition.
///
/// A snapshot fetched at ``fetchStartedAt`` reflects every provider change
/// before then: the projector applies it as authoritative at that instant,
/// and webhooks received later refine it.
public struct ProviderSnapshot: Codable, Sendable, Hashable {
    /// Events read from snapshots are logged under `storefront.snapshot.<entity>`.
    public static let eventNamePrefix = BillingEvent.observationNamePrefix + "snapshot."

    /// What was fetched.
    public enum Entity: String, Codable, Sendable, Hashable {
        /// Lemon Squeezy `GET /v1/subscriptions/{id}`; Paystack `GET /subscription/{code}`.
        case subscription
        /// Lemon Squeezy `GET /v1/orders/{id}`.
        case order
        /// Paystack `GET /transaction/verify/{reference}`.
        case transaction
    }

    /// What the provider answered.
    public enum Outcome: String, Codable, Sendable, Hashable {
        /// 2xx with the object: ``body`` holds the provider's response.
        case found
        /// The provider no longer has it (404): kept and counted, never dropped.
        case notFound = "not_found"
    }

    /// Unique id (UUID string): the projector's dedup key is `snapshot:<id>`.
    /// A snapshot whose content the log already holds at that point is not
    /// stored at all (the projector's `ProjectionStatements.snapshotEvent`),
    /// so hourly sweeps of unchanged objects add nothing.
    public var snapshotID: String
    public var provider: Provider
    public var entity: Entity
    /// Lemon Squeezy subscription or order id; Paystack `SUB_…` code or transaction reference.
    public var entityID: String
    public var outcome: Outcome
    /// The provider's response body, byte for byte (the JSON:API document or
    /// Paystack envelope whose `data` is the object); empty when not found.
    public var body: RawBytes
    public var fetchStartedAt: Date
    public var fetchFinishedAt: Date
    /// Why it was fetched: `webhook:<dedup key>`, `command:<id>`, `sweep:<sweep id>` or `cli:<sweep id>`.
    public var trigger: String

    public init(
        snapshotID: String, provider: Provider, entity: Entity, entityID: String, outcome: Outcome, body: [UInt8],
        fetchStartedAt: Date, fetchFinishedAt: Date, trigger: String
    ) {
        self.snapshotID = snapshotID
        self.provider = provider
        self.entity = entity
        self.entityID = entityID
        self.outcome = outcome
        self.body = RawBytes(body)
        self.fetchStartedAt = fetchStartedAt
        self.fetchFinishedAt = fetchFinishedAt
        self.trigger = trigger
    }

    enum CodingKeys: String, CodingKey {
        case snapshotID = "snapshotId", provider, entity, entityID = "entityId", outcome, body, fetchStartedAt, fetchFinishedAt, trigger
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        snapshotID = try c.decode(String.self, forKey: .snapshotID)
        provider = try c.decode(Provider.self, forKey: .provider)
        entity = try c.decode(Entity.self, forKey: .entity)
        entityID = try c.decode(String.self, forKey: .entityID)
        outcome = try c.decode(Outcome.self, forKey: .outcome)
        body = try c.decode(RawBytes.self, forKey: .body)
        fetchStartedAt = try c.decodeRequiredTimestamp(forKey: .fetchStartedAt)
        fetchFinishedAt = try c.decodeRequiredTimestamp(forKey: .fetchFinishedAt)
        trigger = try c.decode(String.self, forKey: .trigger)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(snapshotID, forKey: .snapshotID)
        try c.encode(provider, forKey: .provider)
        try c.encode(entity, forKey: .entity)
        try c.encode(entityID, forKey: .entityID)
        try c.encode(outcome, forKey: .outcome)
        try c.encode(body, forKey: .body)
        try c.encodeTimestamp(fetchStartedAt, forKey: .fetchStartedAt)
        try c.encodeTimestamp(fetchFinishedAt, forKey: .fetchFinishedAt)
        try c.encode(trigger, forKey: .trigger)
    }
}

extension TopicKey {
    /// Key of a ``ProviderSnapshot``: the key the entity's webhooks use, as
    /// its provider declares it (``ProviderDefinition/snapshotKey(entity:entityID:customerID:)``).
    public static func snapshot(_ provider: Provider, entity: ProviderSnapshot.Entity, entityID: String, customerID: String?) -> String {
        provider.definition.snapshotKey(entity: entity, entityID: entityID, customerID: customerID)
    }
}

extension BillingEvent {
    /// The name prefix of Storefront's own observations of a provider: its
    /// snapshots (`storefront.snapshot.<entity>`) and what a provider answered
    /// a command (`storefront.<command kind>`).
    public static let observationNamePrefix = "storefront."

    /// Read from a reconciler ``ProviderSnapshot`` (the provider's view at a
    /// fetch), not delivered by the provider as an event.
    public var isFromSnapshot: Bool { providerEventName.hasPrefix(ProviderSnapshot.eventNamePrefix) }

    /// Storefront's own observation (a snapshot, a command's answer), timed
    /// by Storefront's clock rather than by the provider's.
    public var isStorefrontObservation: Bool { providerEventName.hasPrefix(Self.observationNamePrefix) }
}
