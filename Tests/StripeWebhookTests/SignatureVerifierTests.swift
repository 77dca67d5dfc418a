import BillingModel
import Foundation
import ServiceSettings
import Webhooks
import Testing

/// `Stripe-Signature` as Stripe documents it: `t=…,v1=…`, HMAC-SHA256 over
/// `"<t>.<raw body>"`, several `v1` during a rotation, a timestamp tolerance.
@Suite("Stripe webhook signatures")
struct SignatureVerifierTests {
    static let secret = Secret("whsec_storefront_test_current")
    static let previous = Secret("whsec_storefront_test_previous")
    static let signedAt: Int64 = 1_740_787_210
    static let body = Array(#"{"id":"evt_1","object":"event"}"#.utf8)

    func verifier(_ secrets: [Secret] = [secret], at seconds: Int64 = signedAt, tolerance: TimeInterval = 300) -> StripeSignatureVerifier {
        StripeSignatureVerifier(secrets: secrets, tolerance: tolerance, now: { Date(timeIntervalSince1970: TimeInterval(seconds)) })
    }

    @Test func aHeaderStripeWouldSendVerifies() throws {
        let header = StripeSignatureVerifier.header(timestamp: Self.signedAt, body: Self.body, secrets: [Self.secret])
        #expect(header.hasPrefix("t=\(Self.signedAt),v1="))
        try verifier().verify(header: header, body: Self.body)
    }

    /// The digest `openssl dgst -sha256 -hmac whsec_storefront_test_current` gives
    /// for `1740787210.` followed by the body: the signed payload's layout
    /// (`<t>.<body>`) is checked against an outside tool, not only against itself.
    @Test func theDigestIsOverTimestampDotBody() throws {
        let computed = StripeSignatureVerifier.header(timestamp: Self.signedAt, body: Self.body, secrets: [Self.secret])
        #expect(computed == "t=1740787210,v1=8c8e57fb9325e8f00eade30818968377ea398a42890b9cab90f9c0442303c53e")
    }

    @Test func anyOfSeveralV1PassesDuringARotation() throws {
        // Stripe signs with the new and the old secret while an endpoint's secret is rolled.
        let header = StripeSignatureVerifier.header(timestamp: Self.signedAt, body: Self.body, secrets: [Self.previous, Self.secret])
        #expect(header.components(separatedBy: "v1=").count == 3)
        try verifier([Self.secret]).verify(header: header, body: Self.body)
        // …and the receiver may hold both while it switches.
        let oldOnly = StripeSignatureVerifier.header(timestamp: Self.signedAt, body: Self.body, secrets: [Self.previous])
        try verifier([Self.secret, Self.previous]).verify(header: oldOnly, body: Self.body)
        #expect(throws: StripeSignatureError.signatureMismatch) { try verifier([Self.secret]).verify(header: oldOnly, body: Self.body) }
    }

    @Test func aChangedBodyOrTimestampFails() {
        let header = StripeSignatureVerifier.header(timestamp: Self.signedAt, body: Self.body, secrets: [Self.secret])
        #expect(throws: StripeSignatureError.signatureMismatch) { try verifier().verify(header: header, body: Self.body + [0x20]) }
        let moved = header.replacingOccurrences(of: "t=\(Self.signedAt)", with: "t=\(Self.signedAt + 1)")
        #expect(throws: StripeSignatureError.signatureMismatch) { try verifier().verify(header: moved, body: Self.body) }
    }

    @Test func theToleranceUsesTheInjectedClockOnBothSides() throws {
        let header = StripeSignatureVerifier.header(timestamp: Self.signedAt, body: Self.body, secrets: [Self.secret])
        try verifier(at: Self.signedAt + 300).verify(header: header, body: Self.body)
        #expect(throws: StripeSignatureError.timestampOutsideTolerance(ageSeconds: 301)) {
            try verifier(at: Self.signedAt + 301).verify(header: header, body: Self.body)
        }
        #expect(throws: StripeSignatureError.timestampOutsideTolerance(ageSeconds: -301)) {
            try verifier(at: Self.signedAt - 301).verify(header: header, body: Self.body)
        }
        try verifier(at: Self.signedAt + 3_600, tolerance: 3_600).verify(header: header, body: Self.body)
    }

    @Test func malformedHeadersAreToldApart() {
        let v1 = String(repeating: "ab", count: 32)
        #expect(throws: StripeSignatureError.missingHeader) { try verifier().verify(header: nil, body: Self.body) }
        #expect(throws: StripeSignatureError.missingHeader) { try verifier().verify(header: "", body: Self.body) }
        #expect(throws: StripeSignatureError.malformedHeader) { try verifier().verify(header: "v1=\(v1)", body: Self.body) }
        #expect(throws: StripeSignatureError.malformedHeader) { try verifier().verify(header: "t=abc,v1=\(v1)", body: Self.body) }
        #expect(throws: StripeSignatureError.malformedHeader) { try verifier().verify(header: "t=1,t=2,v1=\(v1)", body: Self.body) }
        #expect(throws: StripeSignatureError.noV1Signature) { try verifier().verify(header: "t=\(Self.signedAt),v0=\(v1)", body: Self.body) }
        #expect(throws: StripeSignatureError.noV1Signature) { try verifier().verify(header: "t=\(Self.signedAt),v1=zz", body: Self.body) }
        let huge = "t=\(Self.signedAt)," + String(repeating: "v1=\(v1),", count: 40)
        #expect(throws: StripeSignatureError.malformedHeader) { try verifier().verify(header: huge, body: Self.body) }
    }

    @Test func spacesAndUnknownSchemesAreIgnored() throws {
        let header = StripeSignatureVerifier.header(timestamp: Self.signedAt, body: Self.body, secrets: [Self.secret])
        let spaced = header.replacingOccurrences(of: ",", with: " , ") + ",v0=" + String(repeating: "0", count: 64) + ",x=y"
        try verifier().verify(header: spaced, body: Self.body)
        try verifier().verify(
            header: header.uppercased().replacingOccurrences(of: "T=", with: "t=").replacingOccurrences(of: "V1=", with: "v1="), body: Self.body)
    }

    @Test func noSecretRefusesEverything() {
        let header = StripeSignatureVerifier.header(timestamp: Self.signedAt, body: Self.body, secrets: [Secret("")])
        #expect(throws: StripeSignatureError.noSecret) { try verifier([Secret("")]).verify(header: header, body: Self.body) }
    }
}
