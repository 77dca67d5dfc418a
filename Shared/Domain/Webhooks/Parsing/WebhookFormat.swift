import CryptoPrimitives
import Foundation
import BillingModel
import JSONCodec

/// One provider's webhook body: how a verified delivery becomes a
/// ``BillingEvent``, its dedup key and its event name. Each provider's
/// parser conforms; ``Provider/webhookFormat`` is the one place that names
/// them, and ``ProviderWebhooks`` the one way in for the services.
protocol WebhookFormat {
    /// Normalises a parsed delivery. Unknown event names are not errors.
    static func normalize(root: JSONValue) throws(WebhookPayloadError) -> BillingEvent
    /// The event name as sent, read even when the rest of the body is not understood.
    static func eventName(root: JSONValue) -> String?
    /// The delivery's dedup key (the envelope `id`); `root` is nil when the body is not JSON.
    static func dedupKey(root: JSONValue?, body: [UInt8]) -> String
    /// What the time of receipt changes in an event (Paystack orders some
    /// state changes by it); nothing by default.
    static func settle(_ event: inout BillingEvent, receivedAt: Date)
}

extension WebhookFormat {
    static func settle(_ event: inout BillingEvent, receivedAt: Date) {}

    /// Parses and normalises one raw body (what the tests and the fuzz targets feed).
    /// - Throws: ``WebhookPayloadError`` for invalid JSON or a body the provider never sends.
    static func normalize(body: [UInt8]) throws(WebhookPayloadError) -> BillingEvent {
        try normalize(root: JSONValue.webhookBody(body))
    }

    /// Lowercase hex SHA-256 of a body: the dedup key of a delivery without a usable id.
    static func bodyDigest(_ body: [UInt8]) -> String {
        Hex.encode(SHA256.hash(body))
    }
}

extension Provider {
    /// This provider's webhook format.
    var webhookFormat: any WebhookFormat.Type {
        switch self {
        case .lemonsqueezy: LemonSqueezyWebhook.self
        case .paystack: PaystackWebhook.self
        }
    }
}
