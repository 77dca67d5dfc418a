import Foundation
import BillingModel

/// Reads a reconciler ``ProviderSnapshot`` (the provider's own object, as its
/// API answered) into a ``BillingEvent``, with the same parsers as the
/// webhooks (the API and the webhooks carry the same objects).
///
/// - A subscription becomes ``BillingEventKind/subscriptionObserved`` at the
///   fetch's start: it reflects every provider change before then.
/// - An order or transaction is read by its provider's webhook part
///   (``WebhookProviding/normalize(found:name:)``): a Lemon Squeezy order as
///   `orderCreated` or `orderRefunded` by its status, a Paystack transaction
///   as its `charge.success` would be, or `refundProcessed` when `reversed`.
///   They keep the provider's own timestamps; the writes they feed are idempotent.
/// - Anything else, and a snapshot of an object the provider no longer has,
///   is `.unknown`: logged and counted, never applied.
public enum ProviderSnapshots {
    /// The event name snapshots are logged under (`storefront.snapshot.<entity>`).
    public static func eventName(_ snapshot: ProviderSnapshot) -> String { ProviderSnapshot.eventNamePrefix + snapshot.entity.rawValue }

    public static func normalize(_ snapshot: ProviderSnapshot) throws(WebhookPayloadError) -> BillingEvent {
        let name = eventName(snapshot)
        guard snapshot.outcome == .found else {
            var event = BillingEvent(
                kind: .unknown("\(name).not_found"), provider: snapshot.provider, providerEventName: name,
                entityKey: TopicKey.snapshot(snapshot.provider, entity: snapshot.entity, entityID: snapshot.entityID, customerID: nil))
            switch snapshot.entity {
            case .subscription: event.subscriptionID = snapshot.entityID
            case .order: event.orderID = snapshot.entityID
            case .transaction: event.transactionReference = snapshot.entityID
            }
            return event
        }
        var event = try snapshot.provider.webhookRules.normalize(found: snapshot, name: name)
        event.providerEventName = name
        return event
    }
}
