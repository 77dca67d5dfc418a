import Foundation
import JSONCodec

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
            throw DecodingError.dataCorruptedError(
                forKey: .payloadEncoding, in: c, debugDescription: "unsupported payload encoding \(encoding.prefix(20))")
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

extension WebhookEnvelope {
    /// The record bytes, exactly as ``RecordCoding/encode(_:)`` writes them
    /// (sorted keys, slashes unescaped), written by hand: this runs once per
    /// webhook on the receiver's hot path, where `JSONEncoder` showed in the profile.
    public func encodedRecord() -> [UInt8] {
        var out: [UInt8] = []
        let base64 = Data(payload.bytes).base64EncodedString()
        out.reserveCapacity(base64.utf8.count + id.utf8.count + eventName.utf8.count + 140)
        out.append(contentsOf: #"{"eventName":"#.utf8)
        JSONText.appendQuoted(eventName, to: &out)
        out.append(contentsOf: #","id":"#.utf8)
        JSONText.appendQuoted(id, to: &out)
        out.append(contentsOf: #","payload":""#.utf8)
        out.append(contentsOf: base64.utf8)
        out.append(contentsOf: #"","payloadEncoding":"base64","provider":"#.utf8)
        JSONText.appendQuoted(provider.rawValue, to: &out)
        out.append(contentsOf: #","receivedAt":"#.utf8)
        JSONText.appendQuoted(Timestamp.format(receivedAt), to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }
}
