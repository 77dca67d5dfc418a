import Foundation
import JSONCodec

/// Why a `storefront.webhooks.v1` record could not be read.
public struct WebhookRecordError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String
}

extension WebhookEnvelope: TopicRecord {
    /// The record bytes: sorted keys, slashes unescaped, like every other
    /// record (``RecordCoding``), written by hand: this runs once per webhook
    /// on the receiver's hot path, where `JSONEncoder` showed in the profile.
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

    /// Reads a `storefront.webhooks.v1` record: the inverse of
    /// ``encodedRecord()``, in any key order, with `payloadEncoding` absent or
    /// `"base64"`. With ``JSONReader`` instead of `JSONDecoder`: the projector
    /// reads every record this way, and `JSONDecoder` was an eighth of its
    /// CPU while catching up.
    /// - Throws: ``WebhookRecordError`` naming the field.
    public static func decodeRecord(_ bytes: [UInt8]) throws(WebhookRecordError) -> WebhookEnvelope {
        let root: JSONValue
        do { root = try JSONReader.parse(bytes) } catch { throw WebhookRecordError(description: error.description) }
        guard root.object != nil else { throw WebhookRecordError(description: "the record is not a JSON object") }
        func string(_ key: String) throws(WebhookRecordError) -> String {
            guard case .string(let value)? = root[key] else { throw WebhookRecordError(description: "\(key): missing or not a string") }
            return value
        }
        if let encoding = root["payloadEncoding"], !encoding.isNull {
            guard case .string(let name) = encoding, name == payloadEncoding else {
                throw WebhookRecordError(description: "payloadEncoding: unsupported payload encoding")
            }
        }
        let id = try string("id")
        guard let provider = Provider(rawValue: try string("provider")) else { throw WebhookRecordError(description: "provider: unknown provider") }
        let eventName = try string("eventName")
        let received = try string("receivedAt")
        guard let receivedAt = Timestamp.parse(received) else {
            throw WebhookRecordError(description: "receivedAt: not an ISO-8601 timestamp: \(received.prefix(40))")
        }
        guard let payload = Data(base64Encoded: try string("payload")) else { throw WebhookRecordError(description: "payload: not base64") }
        return WebhookEnvelope(id: id, provider: provider, eventName: eventName, receivedAt: receivedAt, payload: Array(payload))
    }
}
