import CryptoPrimitives
import EntitlementSigning
import Foundation
import Kafka
import ServiceSettings
import Telemetry
import Testing

/// The projector's signature on entitlement changes, as its consumers see
/// it: a record read back from the topic is let through only when the
/// projector's key signed exactly its topic, key and value.
@Suite struct EntitlementChangeSignatureTests {
    static let topic = "storefront.entitlements.v1"
    static let value = Array(#"{"id":"evt-1","type":"entitlement.granted","app_user_id":"user-1"}"#.utf8)

    static func pair() throws -> (signer: EntitlementChangeSigner, verifier: EntitlementChangeVerifier, keys: RecordSigner) {
        let keys = try RecordSigner.generate()
        return (EntitlementChangeSigner(keys), EntitlementChangeVerifier(try RecordVerifier(publicKeysPEM: try keys.publicKeyPEM())), keys)
    }

    /// What a consumer reads back after `message` was produced.
    static func read(_ message: KafkaProducerMessage, offset: Int64 = 7) -> KafkaConsumerRecord {
        KafkaConsumerRecord(topic: message.topic, partition: 2, offset: offset, key: message.key, value: message.value, headers: message.headers)
    }

    static func message(key: String = "user-1", value: [UInt8] = value) -> KafkaProducerMessage {
        KafkaProducerMessage(topic: topic, key: key, value: value)
    }

    @Test func aSignedChangeIsLetThrough() throws {
        let (signer, verifier, keys) = try Self.pair()
        let signed = try signer.signed(Self.message())
        let header = try #require(signed.headers.first { $0.name == "storefront-sig" })
        #expect(signed.headers.count == 1)
        #expect(String(decoding: header.value ?? [], as: UTF8.self).hasPrefix(keys.keyID + "."))
        #expect(verifier.rejection(of: Self.read(signed)) == nil)
        // Signing again replaces the signature instead of adding a second one.
        #expect(try signer.signed(signed).headers.count == 1)
    }

    @Test func anUnsignedChangeIsRefused() throws {
        let (_, verifier, _) = try Self.pair()
        #expect(verifier.rejection(of: Self.read(Self.message())) == .unsigned)
        var other = Self.message()
        other.headers = [KafkaHeader("storefront-signature", "x")]
        #expect(verifier.rejection(of: Self.read(other)) == .unsigned, "only the one header name counts")
    }

    @Test func anotherKeysSignatureIsRefused() throws {
        let (_, verifier, _) = try Self.pair()
        let (forger, _, _) = try Self.pair()
        #expect(verifier.rejection(of: Self.read(try forger.signed(Self.message()))) == .unknownKey)
    }

    @Test func aSignatureMovedToOtherBytesIsRefused() throws {
        let (signer, verifier, _) = try Self.pair()
        let signed = try signer.signed(Self.message())
        var tampered = signed
        tampered.value = Array(#"{"id":"evt-1","type":"entitlement.granted","app_user_id":"mallory"}"#.utf8)
        var otherUser = signed
        otherUser.key = Array("user-2".utf8)
        var otherTopic = signed
        otherTopic.topic = "storefront.purchase-events.v1"
        var noKey = signed
        noKey.key = nil
        for record in [tampered, otherUser, otherTopic, noKey] {
            #expect(verifier.rejection(of: Self.read(record)) == .badSignature)
        }
        // A signature made for the other topic does not verify on this one either.
        var moved = try signer.signed(KafkaProducerMessage(topic: "storefront.purchase-events.v1", key: "user-1", value: Self.value))
        moved.topic = Self.topic
        #expect(verifier.rejection(of: Self.read(moved)) == .badSignature)
    }

    @Test func malformedSignatureHeadersAreRefused() throws {
        let (signer, verifier, _) = try Self.pair()
        let signed = try signer.signed(Self.message())
        let good = try #require(signed.headers.first)
        var twice = signed
        twice.headers.append(good)
        var garbage = signed
        garbage.headers = [KafkaHeader("storefront-sig", "not a signature")]
        var empty = signed
        empty.headers = [KafkaHeader("storefront-sig", nil)]
        var binary = signed
        binary.headers = [KafkaHeader("storefront-sig", [0xFF, 0xFE])]
        for record in [twice, garbage, empty, binary] {
            #expect(verifier.rejection(of: Self.read(record)) == .malformed)
        }
    }

    @Test func theGateCountsAndLogsARefusalWithoutItsContent() throws {
        let (signer, verifier, _) = try Self.pair()
        let registry = MetricsRegistry()
        let logs = CapturingLogSink()
        let gate = EntitlementChangeGate(verifier: verifier, registry: registry, logger: Logger(service: "tests", sink: logs))
        #expect(registry.renderPrometheus().contains(#"storefront_entitlement_changes_rejected_total{reason="bad_signature"} 0"#))
        #expect(gate.admits(Self.read(try signer.signed(Self.message()))))
        #expect(!gate.admits(Self.read(Self.message(), offset: 41)))
        #expect(!gate.admits(Self.read(Self.message(), offset: 42)))
        let text = registry.renderPrometheus()
        #expect(text.contains(#"storefront_entitlement_changes_rejected_total{reason="unsigned"} 2"#))
        #expect(text.contains(#"storefront_entitlement_changes_rejected_total{reason="unknown_key"} 0"#))
        #expect(logs.lines.count == 2)
        #expect(logs.lines.allSatisfy { $0.contains(#""reason":"unsigned""#) && !$0.contains("user-1") && !$0.contains("evt-1") })
        #expect(logs.lines.last?.contains(#""kafka.offset":"42""#) == true)
    }
}
