import Foundation
import BillingModel
import JSONCodec
import Webhooks

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
    /// What a list item becomes, read from the item.
    public struct ListedObject: Sendable, Equatable {
        public var id: String
        /// The provider's `updated_at` (`updatedAt`), when the object has one.
        public var updatedAt: Date?
        public var status: String?
        public var customerID: String?
    }

    /// A snapshot of a fetched object (or of one the provider does not have: empty body).
    public static func fetched(
        _ target: EntityRef, body: [UInt8]?, started: Date, finished: Date, trigger: String, customerID: String?
    ) -> KeyedSnapshot {
        let customer = body.flatMap { customerCode(target.provider, body: $0) } ?? customerID
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
        switch provider {
        case .lemonsqueezy:
            guard let id = item["id"]?.string else { return nil }
            return ListedObject(
                id: id, updatedAt: item["attributes", "updated_at"]?.date, status: item["attributes", "status"]?.string, customerID: nil)
        case .paystack:
            let id = list == .transactions ? item["reference"]?.string : item["subscription_code"]?.string
            guard let id else { return nil }
            // Transactions carry no update time (a refund changes `status` and nothing else).
            let updated = list == .transactions ? nil : (item["updatedAt"] ?? item["updated_at"])?.date
            return ListedObject(id: id, updatedAt: updated, status: item["status"]?.string, customerID: item["customer", "customer_code"]?.string)
        }
    }

    /// A list item wrapped the way the single-object endpoint answers, the
    /// item's bytes untouched: Lemon Squeezy `{"data":<resource>}`; Paystack
    /// `{"status":true,"message":"…","data":<object>}`.
    public static func singleObjectBody(_ provider: Provider, _ list: SweepList, item raw: [UInt8]) -> [UInt8] {
        let prefix: String
        switch (provider, list) {
        case (.lemonsqueezy, _): prefix = #"{"data":"#
        case (.paystack, .transactions): prefix = #"{"status":true,"message":"Verification successful","data":"#
        case (.paystack, _): prefix = #"{"status":true,"message":"Subscription retrieved successfully","data":"#
        }
        return Array(prefix.utf8) + raw + Array("}".utf8)
    }

    /// The customer in a fetched envelope, where the provider keys its
    /// records by customer: Paystack's `data.customer.customer_code`.
    static func customerCode(_ provider: Provider, body: [UInt8]) -> String? {
        switch provider {
        case .lemonsqueezy: return nil
        case .paystack:
            guard let document = try? JSONValue.parse(body) else { return nil }
            return document["data", "customer", "customer_code"]?.string
        }
    }
}
