import Foundation
import BillingModel
import JSONCodec

/// Dispatches to ``LemonSqueezyWebhook`` or ``PaystackWebhook`` by provider,
/// for the webhook receiver (which builds the ``WebhookEnvelope`` and topic
/// key) and the projector (which normalises envelopes).
public enum ProviderWebhooks {
    /// Normalises a body from `provider`.
    public static func normalize(_ provider: Provider, body: [UInt8]) throws(WebhookPayloadError) -> BillingEvent {
        switch provider {
        case .lemonsqueezy: try LemonSqueezyWebhook.normalize(body: body)
        case .paystack: try PaystackWebhook.normalize(body: body)
        }
    }

    /// Normalises the payload of an envelope; Paystack state changes are
    /// ordered by the envelope's `receivedAt` (see ``PaystackWebhook/orderByReceipt(_:receivedAt:)``).
    public static func normalize(_ envelope: WebhookEnvelope) throws(WebhookPayloadError) -> BillingEvent {
        var event = try normalize(envelope.provider, body: envelope.payload.bytes)
        if envelope.provider == .paystack { PaystackWebhook.orderByReceipt(&event, receivedAt: envelope.receivedAt) }
        return event
    }

    /// The provider's event name, or nil when unreadable.
    public static func eventName(_ provider: Provider, body: [UInt8]) -> String? {
        switch provider {
        case .lemonsqueezy: LemonSqueezyWebhook.eventName(body: body)
        case .paystack: PaystackWebhook.eventName(body: body)
        }
    }

    /// The delivery's dedup key (the envelope `id`).
    public static func dedupKey(_ provider: Provider, body: [UInt8], sha256Hex: ([UInt8]) -> String) -> String {
        switch provider {
        case .lemonsqueezy: LemonSqueezyWebhook.dedupKey(body: body, sha256Hex: sha256Hex)
        case .paystack: PaystackWebhook.dedupKey(body: body, sha256Hex: sha256Hex)
        }
    }

    /// The `storefront.webhooks.v1` record key: the event's ``BillingEvent/entityKey``,
    /// or `<provider>:unparsed` for a body that does not normalise (it still
    /// gets published so the projector can dead-letter it).
    public static func topicKey(_ provider: Provider, body: [UInt8]) -> String {
        (try? normalize(provider, body: body))?.entityKey ?? TopicKey.make(provider, "unparsed")
    }

    /// Builds the envelope for a verified delivery.
    public static func envelope(
        _ provider: Provider, body: [UInt8], receivedAt: Date, sha256Hex: ([UInt8]) -> String
    ) -> WebhookEnvelope {
        read(provider, body: body, receivedAt: receivedAt, sha256Hex: sha256Hex).envelope
    }

    /// Everything the receiver needs from one verified delivery, from ONE
    /// parse of the body: the envelope (dedup key, event name), the topic
    /// key, and whether the body was understood.
    public static func read(
        _ provider: Provider, body: [UInt8], receivedAt: Date, sha256Hex: ([UInt8]) -> String
    ) -> WebhookRead {
        let root = try? JSONValue.parse(body)
        let event: BillingEvent? = root.flatMap { root in
            switch provider {
            case .lemonsqueezy: try? LemonSqueezyWebhook.normalize(root: root)
            case .paystack: try? PaystackWebhook.normalize(root: root)
            }
        }
        let dedupKey =
            switch provider {
            case .lemonsqueezy: LemonSqueezyWebhook.dedupKey(root: root, body: body, sha256Hex: sha256Hex)
            case .paystack: PaystackWebhook.dedupKey(root: root, body: body, sha256Hex: sha256Hex)
            }
        // The event name as sent, even when the rest of the body is not understood.
        let eventName = event?.providerEventName ?? (provider == .lemonsqueezy ? root?["meta", "event_name"] : root?["event"])?.string ?? ""
        return WebhookRead(
            envelope: WebhookEnvelope(id: dedupKey, provider: provider, eventName: eventName, receivedAt: receivedAt, payload: body),
            topicKey: event?.entityKey ?? TopicKey.make(provider, "unparsed"), isUnderstood: event != nil)
    }
}

/// What ``ProviderWebhooks/read(_:body:receivedAt:sha256Hex:)`` found in a delivery.
public struct WebhookRead: Sendable {
    public var envelope: WebhookEnvelope
    /// The `storefront.webhooks.v1` key (`<provider>:unparsed` when not understood).
    public var topicKey: String
    /// False when the body did not normalise: it is still published, for the projector to dead-letter.
    public var isUnderstood: Bool
}
