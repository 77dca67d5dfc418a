import Foundation
import BillingModel
import Testing
@testable import Webhooks

/// `WebhookEnvelope.decodeRecord` must read exactly what the `Decodable` init
/// reads, and refuse what it refuses.
@Suite struct WebhookRecordTests {
    static let envelope = WebhookEnvelope(
        id: "lemonsqueezy:wh_1", provider: .lemonsqueezy, eventName: "order_created \"x\"",
        receivedAt: Date(timeIntervalSince1970: 1_796_125_814.368), payload: Array(#"{"a":"ü\\"}"#.utf8))

    @Test func readsWhatTheReceiverWrites() throws {
        let record = Self.envelope.encodedRecord()
        #expect(try WebhookEnvelope.decodeRecord(record) == RecordCoding.decode(WebhookEnvelope.self, from: record))
        #expect(try WebhookEnvelope.decodeRecord(record) == Self.envelope)
    }

    static let payload = Data(#"{"a":1}"#.utf8).base64EncodedString()
    static let variants: [String] = [
        // accepted: any key order, payloadEncoding absent or null
        #"{"provider":"paystack","receivedAt":"2026-12-01T11:50:14Z","payload":"\#(payload)","id":"p:1","eventName":"charge.success"}"#,
        #"{"eventName":"","id":"p:1","payload":"\#(payload)","payloadEncoding":null,"provider":"paystack","receivedAt":"2026-12-01T11:50:14.5+01:00"}"#,
        // refused
        #"{"eventName":"e","id":"p:1","payload":"\#(payload)","payloadEncoding":"hex","provider":"paystack","receivedAt":"2026-12-01T11:50:14Z"}"#,
        #"{"eventName":"e","id":"p:1","payload":"\#(payload)","provider":"stripe","receivedAt":"2026-12-01T11:50:14Z"}"#,
        #"{"eventName":"e","id":"p:1","payload":"\#(payload)","provider":"paystack","receivedAt":"yesterday"}"#,
        #"{"eventName":"e","payload":"\#(payload)","provider":"paystack","receivedAt":"2026-12-01T11:50:14Z"}"#,
        #"{"eventName":"e","id":7,"payload":"\#(payload)","provider":"paystack","receivedAt":"2026-12-01T11:50:14Z"}"#,
        #"{"eventName":"e","id":"p:1","payload":"%%%","provider":"paystack","receivedAt":"2026-12-01T11:50:14Z"}"#,
        #"{"eventName":"e","id":"p:1","payload":"\#(payload)","provider":"paystack","receivedAt":"2026-12-01T11:50:14Z""#,
        #"["not an object"]"#,
    ]

    @Test(arguments: variants)
    func agreesWithTheDecodableInit(text: String) {
        let bytes = Array(text.utf8)
        let expected = try? RecordCoding.decode(WebhookEnvelope.self, from: bytes)
        let read = try? WebhookEnvelope.decodeRecord(bytes)
        #expect(read == expected, "\(text)")
    }

    @Test func aRefusalNamesTheField() {
        #expect(throws: WebhookRecordError(description: "provider: unknown provider")) {
            try WebhookEnvelope.decodeRecord(Array(Self.variants[3].utf8))
        }
    }
}
