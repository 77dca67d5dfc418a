import BillingModel
import CryptoPrimitives
import Foundation
import ServiceSettings

/// Checks Stripe's `Stripe-Signature` header: `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`,
/// each `v1` the hex HMAC-SHA256 of the bytes `"<t>.<raw body>"` under an
/// endpoint's signing secret (`whsec_…`, used as its UTF-8 bytes).
///
/// Rotation works from both ends: while Stripe rolls an endpoint's secret it
/// sends one `v1` per active secret, and this verifier may hold several secrets
/// (the new and the previous one); any `v1` that matches any secret passes.
/// Every candidate is compared in constant time and all of them are compared,
/// so timing reveals neither which one matched nor how close a forgery came.
/// Other schemes (`v0`, the test-mode scheme Stripe also sends) are ignored.
///
/// The timestamp must lie within ``tolerance`` of the injected clock on
/// either side (Stripe's libraries refuse only old ones; a timestamp far in
/// the future is no more believable), so a captured request cannot be replayed
/// later. The signature is checked before the timestamp, so a stale but
/// genuine request is told apart from a forged one in the logs.
public struct StripeSignatureVerifier: Sendable {
    /// The header's name, lowercase as HTTP/2 and the receiver's lookup use it.
    public static let headerName = "stripe-signature"
    /// Stripe's own libraries default to five minutes.
    public static let defaultTolerance: TimeInterval = 300
    /// A header longer than this is refused unread (rotation adds one 68-byte `v1` per secret).
    public static let maximumHeaderLength = 2_048
    /// At most this many `v1` values are compared.
    public static let maximumSignatures = 8

    let secrets: [Secret]
    let tolerance: TimeInterval
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - secrets: the endpoint's signing secrets (one, or two during a rotation); empty ones are ignored.
    ///   - tolerance: how far the signed timestamp may be from `now`, in seconds.
    ///   - now: the clock (tests pin it).
    public init(secrets: [Secret], tolerance: TimeInterval = defaultTolerance, now: @escaping @Sendable () -> Date = { Date() }) {
        self.secrets = secrets.filter { !$0.isEmpty }
        self.tolerance = max(0, tolerance)
        self.now = now
    }

    /// Returns normally when `header` signs `body`; throws why not otherwise.
    public func verify(header: String?, body: [UInt8]) throws(StripeSignatureError) {
        guard let header, !header.isEmpty else { throw .missingHeader }
        let parsed = try StripeSignatureHeader.parse(header)
        guard !secrets.isEmpty else { throw .noSecret }
        var signedPayload = Array("\(parsed.timestamp).".utf8)
        signedPayload.append(contentsOf: body)
        var matched = false
        for secret in secrets {
            let expected = HMAC.sha256(key: secret.bytes, message: signedPayload)
            for candidate in parsed.signatures where constantTimeEquals(expected, candidate) { matched = true }
        }
        guard matched else { throw .signatureMismatch }
        let age = now().timeIntervalSince1970 - Double(parsed.timestamp)
        guard abs(age) <= tolerance else { throw .timestampOutsideTolerance(ageSeconds: Int64(age.rounded())) }
    }

    /// The header Stripe would send for `body` at `timestamp`, one `v1` per
    /// secret: for tests, fuzzing and local tools that play Stripe.
    public static func header(timestamp: Int64, body: [UInt8], secrets: [Secret]) -> String {
        var signedPayload = Array("\(timestamp).".utf8)
        signedPayload.append(contentsOf: body)
        let signatures = secrets.map { "v1=" + Hex.encode(HMAC.sha256(key: $0.bytes, message: signedPayload)) }
        return (["t=\(timestamp)"] + signatures).joined(separator: ",")
    }
}
