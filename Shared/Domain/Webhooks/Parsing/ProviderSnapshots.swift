import Foundation
import BillingModel

/// Reads a reconciler ``ProviderSnapshot`` (the provider's own object, as its
/// API answered) into a ``BillingEvent``, with the same parsers as the
/// webhooks (the API and the webhooks carry the same objects).
///
/// - A subscription becomes ``BillingEventKind/subscriptionObserved`` at the
///   fetch's start: it reflects every provider change before then.
/// - A Lemon Squeezy order becomes `orderCreated` (paid) or `orderRefunded`
///   (refunded, partial_refund); a Paystack transaction becomes what its
///   `charge.success` would (`orderCreated`, or `paymentSucceeded` with a plan;
///   its metadata names the buyer) or `refundProcessed` when `reversed`. Both
///   keep the provider's own timestamps; the writes they feed are idempotent.
/// - Anything else, and a snapshot of an object the provider no longer has,
///   is `.unknown`: logged and counted, never applied.
public enum ProviderSnapshots {
    /// The event name snapshots are logged under (`storefront.snapshot.<entity>`).
    public static func eventName(_ snapshot: ProviderSnapshot) -> String { "storefront.snapshot.\(snapshot.entity.rawValue)" }

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
        let body = snapshot.body.bytes
        var event: BillingEvent
        switch (snapshot.provider, snapshot.entity) {
        case (.lemonsqueezy, .subscription):
            event = try LemonSqueezyWebhook.normalize(document: body, name: name, kind: .subscriptionObserved)
            event.orderingTimestamp = snapshot.fetchStartedAt
        case (.lemonsqueezy, _):
            event = try LemonSqueezyWebhook.normalize(document: body, name: name, kind: .orderCreated)
            switch event.status {
            case "paid": break
            case "refunded", "partial_refund": event.kind = .orderRefunded
            default: event.kind = .unknown("\(name).\(event.status ?? "unknown")")
            }
        case (.paystack, .subscription):
            // Read as a subscription event would be; the status is the provider's own.
            event = try PaystackWebhook.normalize(envelope: body, name: "subscription.snapshot", kind: .subscriptionObserved)
            event.cancelled = ["non-renewing", "cancelled", "complete", "completed"].contains(event.status ?? "")
            event.orderingTimestamp = snapshot.fetchStartedAt
        case (.paystack, _):
            event = try PaystackWebhook.normalize(envelope: body, name: "charge.success", kind: nil)
            switch event.status {
            case "success": break
            case "reversed":
                // Reversed (refunded or charged back) some time before the
                // fetch: ordered then, not at the charge's `paid_at`.
                event.kind = .refundProcessed
                event.orderingTimestamp = snapshot.fetchStartedAt
            default: event.kind = .unknown("\(name).\(event.status ?? "unknown")")
            }
        }
        event.providerEventName = name
        return event
    }
}
