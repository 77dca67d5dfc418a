import CryptoPrimitives
import Foundation
import Testing

/// Webhooks out are signed as the Standard Webhooks specification says, so
/// the receivers' own libraries accept them.
@Suite struct StandardWebhookSignatureTests {
    // The specification's published vector (its reference libraries test against it).
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    static let id = "msg_p5jXN8AQM9LWM0D4loKWxJek"
    static let timestamp: Int64 = 1_614_265_330
    static let body = Array(#"{"test": 2432232314}"#.utf8)

    @Test func reproducesThePublishedVector() throws {
        let key = try StandardWebhookSignature.key(of: Self.secret)
        #expect(
            StandardWebhookSignature.sign(id: Self.id, timestamp: Self.timestamp, body: Self.body, key: key)
                == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func verifiesAnyOfSeveralSignaturesWithinTheTolerance() throws {
        let key = try StandardWebhookSignature.key(of: Self.secret)
        let other = try StandardWebhookSignature.key(of: try StandardWebhookSignature.generateSecret())
        let header = StandardWebhookSignature.header(id: Self.id, timestamp: Self.timestamp, body: Self.body, keys: [other, key])
        #expect(header.split(separator: " ").count == 2)
        let at = Date(timeIntervalSince1970: TimeInterval(Self.timestamp) + 60)
        #expect(StandardWebhookSignature.verify(header: header, id: Self.id, timestamp: "1614265330", body: Self.body, key: key, now: at))
        // A changed body, id or an old timestamp does not verify.
        #expect(!StandardWebhookSignature.verify(header: header, id: Self.id, timestamp: "1614265330", body: Self.body + [0x20], key: key, now: at))
        #expect(!StandardWebhookSignature.verify(header: header, id: "msg_other", timestamp: "1614265330", body: Self.body, key: key, now: at))
        let late = Date(timeIntervalSince1970: TimeInterval(Self.timestamp) + 301)
        #expect(!StandardWebhookSignature.verify(header: header, id: Self.id, timestamp: "1614265330", body: Self.body, key: key, now: late))
    }

    @Test func secretsAreWhsecAndBase64OfTwentyFourToSixtyFourBytes() throws {
        let generated = try StandardWebhookSignature.generateSecret()
        #expect(generated.hasPrefix("whsec_"))
        #expect(try StandardWebhookSignature.key(of: generated).count == 32)
        #expect(throws: StandardWebhookSignature.SecretError.missingPrefix) {
            try StandardWebhookSignature.key(of: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        }
        #expect(throws: StandardWebhookSignature.SecretError.notBase64) { try StandardWebhookSignature.key(of: "whsec_not base64!") }
        #expect(throws: StandardWebhookSignature.SecretError.badLength(3)) { try StandardWebhookSignature.key(of: "whsec_YWJj") }
    }
}
