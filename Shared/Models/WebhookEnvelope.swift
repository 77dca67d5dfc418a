import Foundation

/// The value of a `storefront.webhooks.v1` record: one verified webhook delivery.
///
/// JSON: `{"eventName":"order_created","id":"…","payload":"<base64>",
/// "payloadEncoding":"base64","provider":"lemonsqueezy","receivedAt":"…Z"}`.
/// `payload` holds the provider's body bytes exactly as received (see
/// ``RawBytes`` for why base64); the projector normalises it with the
/// provider's webhook parser.
public struct WebhookEnvelope: Codable, Sendable, Hashable {
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

    enum CodingKeys: String, CodingKey { case id, provider, eventName, receivedAt, payload, payloadEncoding }

    public init(id: String, provider: Provider, eventName: String, receivedAt: Date, payload: [UInt8]) {
        self.id = id
        self.provider = provider
        self.eventName = eventName
        self.receivedAt = receivedAt
        self.payload = RawBytes(payload)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let encoding = try c.decodeIfPresent(String.self, forKey: .payloadEncoding) ?? Self.payloadEncoding
        guard encoding == Self.payloadEncoding else {
            throw DecodingError.dataCorruptedError(forKey: .payloadEncoding, in: c, debugDescription: "unsupported payload encoding \(encoding.prefix(20))")
        }
        id = try c.decode(String.self, forKey: .id)
        provider = try c.decode(Provider.self, forKey: .provider)
        eventName = try c.decode(String.self, forKey: .eventName)
        receivedAt = try c.decodeRequiredTimestamp(forKey: .receivedAt)
        payload = try c.decode(RawBytes.self, forKey: .payload)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(provider, forKey: .provider)
        try c.encode(eventName, forKey: .eventName)
        try c.encodeTimestamp(receivedAt, forKey: .receivedAt)
        try c.encode(payload, forKey: .payload)
        try c.encode(Self.payloadEncoding, forKey: .payloadEncoding)
    }
}
