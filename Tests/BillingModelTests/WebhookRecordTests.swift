import Foundation
import Testing
@testable import BillingModel

/// `WebhookEnvelope.decodeRecord` reads what `encodedRecord` writes, in any
/// key order, and refuses every malformed record, naming the field.
@Suite struct WebhookRecordTests {
    static let envelope = WebhookEnvelope(
        id: "lemonsqueezy:wh_1", provider: .lemonsqueezy, eventName: "order_created \"x\"",
        receivedAt: Date(timeIntervalSince1970: 1_796_125_814.368), payload: Array(#"{"a":"ü\\"}"#.utf8))

    @Test func readsWhatTheReceiverWrites() throws {
        let record = Self.envelope.encodedRecord()
        #expect(try WebhookEnvelope.decodeRecord(record) == Self.envelope)
    }

    static let payload = Data(#"{"a":1}"#.utf8).base64EncodedString()
    static let variants: [String] = [
        // accepted: any key order, payloadEncoding absent or null
        #"{"provider":"paystack","receivedAt":"2026-12-01T11:50:14Z","payload":"\#(payload)","id":"p:1","eventName":"charge.success"}"#,
        #"{"eventName":"","id":"p:1","payload":"\#(payload)","payloadEncoding":null,"provider":"paystack","receivedAt":"2026-12-01T11:50:14.5+01:00"}"#,
        // refused
        #"{"eventName":"e","id":"p:1","payload":"\#(payload)","payloadEncoding":"hex","provider":"paystack","receivedAt":"2026-12-01T11:50:14Z"}"#,
        #"{"eventName":"e","id":"p:1","payload":"\#(payload)","provider":"nopay","receivedAt":"2026-12-01T11:50:14Z"}"#,
        #"{"eventName":"e","id":"p:1","payload":"\#(payload)","provider":"paystack","receivedAt":"yesterday"}"#,
        #"{"eventName":"e","payload":"\#(payload)","provider":"paystack","receivedAt":"2026-12-01T11:50:14Z"}"#,
        #"{"eventName":"e","id":7,"payload":"\#(payload)","provider":"paystack","receivedAt":"2026-12-01T11:50:14Z"}"#,
        #"{"eventName":"e","id":"p:1","payload":"%%%","provider":"paystack","receivedAt":"2026-12-01T11:50:14Z"}"#,
        #"{"eventName":"e","id":"p:1","payload":"\#(payload)","provider":"paystack","receivedAt":"2026-12-01T11:50:14Z""#,
        #"["not an object"]"#,
    ]

    static let accepted = WebhookEnvelope(
        id: "p:1", provider: .paystack, eventName: "charge.success", receivedAt: Timestamp.parse("2026-12-01T11:50:14Z")!,
        payload: Array(#"{"a":1}"#.utf8))

    @Test func readsAnyKeyOrderAndAnAbsentOrNullEncoding() throws {
        #expect(try WebhookEnvelope.decodeRecord(Array(Self.variants[0].utf8)) == Self.accepted)
        var second = Self.accepted
        second.eventName = ""
        second.receivedAt = Timestamp.parse("2026-12-01T11:50:14.5+01:00")!
        #expect(try WebhookEnvelope.decodeRecord(Array(Self.variants[1].utf8)) == second)
    }

    @Test(arguments: variants.dropFirst(2))
    func refusesMalformedRecords(text: String) {
        #expect(throws: WebhookRecordError.self, "\(text)") { try WebhookEnvelope.decodeRecord(Array(text.utf8)) }
    }

    @Test func aRefusalNamesTheField() {
        #expect(throws: WebhookRecordError(description: "provider: unknown provider")) {
            try WebhookEnvelope.decodeRecord(Array(Self.variants[3].utf8))
        }
    }
}
