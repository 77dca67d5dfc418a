import ServiceSettings
import Foundation
import HTTPPrimitives
import BillingModel
import JSONCodec
import ProviderConfiguration
import TestSupport
import Testing
import Webhooks

@Suite struct WebhookVerifierTests {
    static let lsSecret = "ls-test-signing-secret"
    static let psKey = "sk_test_0123456789abcdef"
    let ls = LemonSqueezyWebhookVerifier(secret: Secret(lsSecret))
    let ps = PaystackWebhookVerifier(secretKey: Secret(psKey))

    /// Every webhook fixture with the header its provider would send, signed by openssl.
    static func signedFixtures() async throws -> [(name: String, provider: Provider, body: [UInt8], headers: [(String, String)])] {
        let names = try Fixture.names(withPrefix: "lemonsqueezy.webhook.") + Fixture.names(withPrefix: "paystack.webhook.")
        #expect(names.count >= 20, "expected the webhook fixtures in Tests/Fixtures")
        var signed: [(name: String, provider: Provider, body: [UInt8], headers: [(String, String)])] = []
        for name in names {
            let body = try Fixture.bytes(name)
            if name.hasPrefix("lemonsqueezy.") {
                signed.append((name, .lemonsqueezy, body, [("X-Signature", try await OpenSSLSigner.hmacHex("sha256", key: lsSecret, body: body))]))
            } else {
                signed.append((name, .paystack, body, [("x-paystack-signature", try await OpenSSLSigner.hmacHex("sha512", key: psKey, body: body))]))
            }
        }
        return signed
    }

    func verifier(_ provider: Provider) -> any WebhookVerifier { provider == .lemonsqueezy ? ls : ps }

    @Test func everyFixtureSignedByOpenSSLVerifies() async throws {
        for fixture in try await Self.signedFixtures() {
            #expect(throws: Never.self, "\(fixture.name)") {
                try verifier(fixture.provider).verify(headers: fixture.headers, body: fixture.body, remoteAddress: "203.0.113.9")
            }
        }
    }

    @Test func oneChangedByteFails() async throws {
        for fixture in try await Self.signedFixtures() {
            for position in [0, fixture.body.count / 2, fixture.body.count - 1] {
                var body = fixture.body
                body[position] ^= 0x01
                #expect(
                    throws: WebhookVerificationError.badSignature(header: verifier(fixture.provider).signatureHeader),
                    "\(fixture.name) byte \(position)"
                ) {
                    try verifier(fixture.provider).verify(headers: fixture.headers, body: body, remoteAddress: nil)
                }
            }
            // One byte more (e.g. a re-serialised trailing newline) fails too.
            #expect(throws: WebhookVerificationError.self) {
                try verifier(fixture.provider).verify(headers: fixture.headers, body: fixture.body + [0x0A], remoteAddress: nil)
            }
        }
    }

    @Test func wrongSecretFails() async throws {
        let body = try Fixture.bytes("lemonsqueezy.webhook.order_created.with_custom_data.json")
        let signature = try await OpenSSLSigner.hmacHex("sha256", key: Self.lsSecret + "x", body: body)
        #expect(throws: WebhookVerificationError.badSignature(header: "x-signature")) {
            try ls.verify(headers: [("X-Signature", signature)], body: body, remoteAddress: nil)
        }
        let psBody = try Fixture.bytes("paystack.webhook.charge.success.json")
        let psSignature = try await OpenSSLSigner.hmacHex("sha512", key: "sk_test_other", body: psBody)
        #expect(throws: WebhookVerificationError.badSignature(header: "x-paystack-signature")) {
            try ps.verify(headers: [("x-paystack-signature", psSignature)], body: psBody, remoteAddress: nil)
        }
    }

    @Test func missingOrEmptyHeaderFails() async throws {
        let body = try Fixture.bytes("paystack.webhook.charge.success.json")
        #expect(throws: WebhookVerificationError.missingSignature(header: "x-paystack-signature")) {
            try ps.verify(headers: [("Content-Type", "application/json")], body: body, remoteAddress: nil)
        }
        #expect(throws: WebhookVerificationError.missingSignature(header: "x-signature")) {
            try ls.verify(headers: ["X-Signature": "  "], body: body, remoteAddress: nil)
        }
    }

    @Test func anotherProvidersHeaderFails() async throws {
        for fixture in try await Self.signedFixtures() {
            // The same body under the other provider's header and algorithm, keyed with
            // the receiving verifier's own secret: the header it reads is absent.
            let other: (any WebhookVerifier, String)
            if fixture.provider == .lemonsqueezy {
                other = (ps, try await OpenSSLSigner.hmacHex("sha256", key: Self.psKey, body: fixture.body))
                #expect(throws: WebhookVerificationError.missingSignature(header: "x-paystack-signature")) {
                    try other.0.verify(headers: [("X-Signature", other.1)], body: fixture.body, remoteAddress: nil)
                }
            } else {
                other = (ls, try await OpenSSLSigner.hmacHex("sha512", key: Self.lsSecret, body: fixture.body))
                #expect(throws: WebhookVerificationError.missingSignature(header: "x-signature")) {
                    try other.0.verify(headers: [("x-paystack-signature", other.1)], body: fixture.body, remoteAddress: nil)
                }
            }
            // Right header name, wrong algorithm (a SHA-512 digest where SHA-256 is expected and vice versa).
            let swapped =
                fixture.provider == .lemonsqueezy
                ? [("X-Signature", try await OpenSSLSigner.hmacHex("sha512", key: Self.lsSecret, body: fixture.body))]
                : [("x-paystack-signature", try await OpenSSLSigner.hmacHex("sha256", key: Self.psKey, body: fixture.body))]
            #expect(throws: WebhookVerificationError.self) {
                try verifier(fixture.provider).verify(headers: swapped, body: fixture.body, remoteAddress: nil)
            }
        }
    }

    @Test func headerNamesAreCaseInsensitiveAndHexCaseIsAccepted() async throws {
        let body = try Fixture.bytes("lemonsqueezy.webhook.subscription_created.synthetic.json")
        let signature = try await OpenSSLSigner.hmacHex("sha256", key: Self.lsSecret, body: body)
        try ls.verify(headers: ["x-signature": signature.uppercased()], body: body, remoteAddress: nil)
        try ls.verify(header: { $0 == "x-signature" ? signature : nil }, body: body, remoteAddress: nil)
        let headers = HTTPHeaders([("Content-Type", "application/json"), ("X-Signature", signature)])
        try ls.verify(header: { headers[$0] }, body: body, remoteAddress: nil)
        guard case .success = ls.check(headers: [("X-SIGNATURE", signature)], body: body, remoteAddress: nil) else {
            Issue.record("check() refused a valid signature")
            return
        }
        #expect(throws: WebhookVerificationError.badSignature(header: "x-signature")) {
            try ls.verify(headers: ["X-Signature": "not-hex"], body: body, remoteAddress: nil)
        }
    }

    @Test func paystackAllowListChecksTheSourceAddress() async throws {
        let list = try IPAllowList(PaystackConfiguration.documentedWebhookIPs)
        let guarded = PaystackWebhookVerifier(secretKey: Secret(Self.psKey), allowList: list)
        let body = try Fixture.bytes("paystack.webhook.subscription.create.json")
        let headers = [("x-paystack-signature", try await OpenSSLSigner.hmacHex("sha512", key: Self.psKey, body: body))]

        try guarded.verify(headers: headers, body: body, remoteAddress: "52.31.139.75")
        try guarded.verify(headers: headers, body: body, remoteAddress: "::ffff:52.214.14.220")
        #expect(throws: WebhookVerificationError.remoteAddressNotAllowed("203.0.113.7")) {
            try guarded.verify(headers: headers, body: body, remoteAddress: "203.0.113.7")
        }
        #expect(throws: WebhookVerificationError.remoteAddressNotAllowed("unknown address")) {
            try guarded.verify(headers: headers, body: body, remoteAddress: nil)
        }
        #expect(throws: WebhookVerificationError.remoteAddressNotAllowed("52.31.139.7")) {
            try guarded.verify(headers: headers, body: body, remoteAddress: "52.31.139.7")
        }
        // An allowed address does not excuse a bad signature.
        var tampered = body
        tampered[10] ^= 0x20
        #expect(throws: WebhookVerificationError.badSignature(header: "x-paystack-signature")) {
            try guarded.verify(headers: headers, body: tampered, remoteAddress: "52.49.173.169")
        }
        // Without a list, any address is fine.
        try ps.verify(headers: headers, body: body, remoteAddress: "203.0.113.7")
    }

    @Test func allowListParsesAndRefusesGarbage() async throws {
        let list = try IPAllowList(commaSeparated: " 10.0.0.1 , 2001:db8::1")
        #expect(list.addresses == ["10.0.0.1", "2001:db8::1"])
        #expect(list.contains("[2001:0db8:0:0:0:0:0:1]"))
        #expect(list.contains("10.0.0.1"))
        #expect(!list.contains("10.0.0.2"))
        #expect(!list.contains("not an address"))
        #expect(throws: IPAllowList.ParseError.self) { try IPAllowList(commaSeparated: "10.0.0.1, example.com") }
        #expect(throws: IPAllowList.ParseError.self) { try IPAllowList(commaSeparated: " , ") }
        #expect(throws: IPAllowList.ParseError.self) { try IPAllowList(["10.0.0.0/8"]) }
    }

    @Test func oversizedBodyIsRefusedBeforeHashing() {
        let body = [UInt8](repeating: 0x20, count: JSONValue.maximumBodySize + 1)
        #expect(throws: WebhookVerificationError.bodyTooLarge(bytes: body.count)) {
            try ls.verify(headers: [("X-Signature", String(repeating: "0", count: 64))], body: body, remoteAddress: nil)
        }
    }
}
