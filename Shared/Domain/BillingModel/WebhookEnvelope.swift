import Foundation
import JSONCodec

/// The value of a `storefront.webhooks.v1` record: one verified webhook delivery.
///
/// JSON: `{"eventName":"order_created","id":"…","payload":"<base64>",
/// "payloadEncoding":"base64","provider":"lemonsqueezy","receivedAt":"…Z"}`.
/// `payload` holds the provider's body bytes exactly as received (see
/// ``RawBytes`` for why base64); the projector normalises it with the
/// provider's webhook parser. Its one coding is by hand, both ways
/// (`WebhookEnvelope+Record.swift`): it runs once per webhook in the receiver
/// and once per record in the projector.
public struct WebhookEnvelope: Sendable, Hashable {
    /// Dedup key of the delivery (see the providers' `dedupKey` functions).
    public var id: String
    public var provider: Provider
    /// The provider's event name (`meta.event_name` / `event`); empty if unreadable.
    public var eventName: String
    public var receivedAt: Date
    /// The raw body.
    public var payload: RawBytes

    /// Always `"base64"`; written so a reader never has to guess.
    public static let payloadEncoding = "base64"

    public init(id: String, provider: Provider, eventName: String, receivedAt: Date, payload: [UInt8]) {
        self.id = id
        self.provider = provider
        self.eventName = eventName
        self.receivedAt = receivedAt
        self.payload = RawBytes(payload)
    }
}
