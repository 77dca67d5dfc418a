import Foundation
import BillingModel
import JSONCodec
import Webhooks
import Providers

/// A snapshot with the record key it is published under.
public struct KeyedSnapshot: Sendable, Hashable {
    public var key: String
    public var snapshot: ProviderSnapshot

    public init(key: String, snapshot: ProviderSnapshot) {
        self.key = key
        self.snapshot = snapshot
    }
}

/// Builds snapshots the way the projector reads them: the single-object
/// endpoint's body, keyed like the entity's webhooks.
public enum SnapshotBuilder {
    /// A snapshot of a fetched object (or of one the provider does not have: empty body).
    public static func fetched(
        _ target: EntityRef, body: [UInt8]?, started: Date, finished: Date, trigger: String, customerID: String?
    ) -> KeyedSnapshot {
        let customer = body.flatMap(target.provider.apiRules.customerID(inFetched:)) ?? customerID
        let snapshot = ProviderSnapshot(
            snapshotID: UUID().uuidString.lowercased(), provider: target.provider, entity: target.entity, entityID: target.id,
            outcome: body == nil ? .notFound : .found, body: body ?? [], fetchStartedAt: started, fetchFinishedAt: finished, trigger: trigger)
        return KeyedSnapshot(key: key(target, customerID: customer), snapshot: snapshot)
    }

    /// The record key: ``Models/TopicKey/snapshot(_:entity:entityID:customerID:)``.
    public static func key(_ target: EntityRef, customerID: String?) -> String {
        TopicKey.snapshot(target.provider, entity: target.entity, entityID: target.id, customerID: customerID)
    }

    /// A list item's id, update time, status and customer, or nil when the item has no id.
    public static func listed(_ provider: Provider, _ list: SweepList, item: JSONValue) -> ListedObject? {
        provider.apiRules.listed(list.entity, item: item)
    }

    /// A list item wrapped the way the single-object endpoint answers, the
    /// item's bytes untouched (Lemon Squeezy `{"data":<resource>}`; Paystack
    /// `{"status":true,"message":"…","data":<object>}`).
    public static func singleObjectBody(_ provider: Provider, _ list: SweepList, item raw: [UInt8]) -> [UInt8] {
        provider.apiRules.singleObjectBody(list.entity, item: raw)
    }
}
