import Foundation
import BillingModel
import JSONCodec

/// The webhook path's two jobs, for every provider: ``read(_:body:receivedAt:)``
/// a verified delivery (the receiver: envelope and topic key from one parse)
/// and ``normalize(_:)`` a stored envelope (the projector and the reconciler).
public enum ProviderWebhooks {
    /// Largest body any provider's webhook is verified and parsed from.
    public static var maximumBodySize: Int { JSONValue.maximumBodySize }

    /// Everything the receiver needs from one verified delivery, from ONE
    /// parse of the body: the envelope (dedup key, event name), the topic
    /// key, and whether the body was understood.
    public static func read(_ provider: Provider, body: [UInt8], receivedAt: Date) -> WebhookRead {
        let format = provider.webhookFormat
        let root = try? JSONValue.parse(body)
        let event = root.flatMap { try? format.normalize(root: $0) }
        // The event name as sent, even when the rest of the body is not understood.
        let eventName = event?.providerEventName ?? root.flatMap(format.eventName(root:)) ?? ""
        return WebhookRead(
            envelope: WebhookEnvelope(
                id: format.dedupKey(root: root, body: body), provider: provider, eventName: eventName, receivedAt: receivedAt,
                payload: body),
            topicKey: event?.entityKey ?? TopicKey.make(provider, "unparsed"), isUnderstood: event != nil)
    }

    /// A stored envelope's keys: the event's kind and the ids of the
    /// subscription, order, invoice, transaction and customer it is about,
    /// as ``normalize(_:)`` reads them, and nothing else of it (the
    /// reconciler decides what to fetch from them). Cheaper than
    /// ``normalize(_:)`` for a provider whose format reads them alone
    /// (``WebhookFormat/keys(root:)``).
    /// - Throws: ``WebhookPayloadError`` for a payload ``normalize(_:)`` refuses.
    public static func keys(_ envelope: WebhookEnvelope) throws(WebhookPayloadError) -> BillingEvent {
        try envelope.provider.webhookFormat.keys(root: JSONValue.webhookBody(envelope.payload.bytes))
    }

    /// Normalises the payload of a stored envelope, settled by its time of
    /// receipt (Paystack orders some state changes by it: ``PaystackWebhook/settle(_:receivedAt:)``).
    public static func normalize(_ envelope: WebhookEnvelope) throws(WebhookPayloadError) -> BillingEvent {
        let format = envelope.provider.webhookFormat
        var event = try format.normalize(body: envelope.payload.bytes)
        format.settle(&event, receivedAt: envelope.receivedAt)
        return event
    }
}

/// What ``ProviderWebhooks/read(_:body:receivedAt:)`` found in a delivery.
public struct WebhookRead: Sendable {
    public var envelope: WebhookEnvelope
    /// The `storefront.webhooks.v1` key (`<provider>:unparsed` when not understood).
    public var topicKey: String
    /// False when the body did not normalise: it is still published, for the projector to dead-letter.
    public var isUnderstood: Bool
}
