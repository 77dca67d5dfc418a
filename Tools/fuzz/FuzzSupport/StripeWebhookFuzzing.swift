import Foundation
import ServiceSettings
import Webhooks

/// What must hold for any body (and any `Stripe-Signature` header) posted to
/// a Stripe webhook endpoint, checked by `fuzz-stripe-webhook` over the Stripe
/// pieces (`StripeProvider`): a body signed as Stripe signs verifies, nothing
/// forged does, and the event parse never traps and yields bounded values.
public enum StripeWebhookFuzzing {
    static let secret = Secret("whsec_fuzz_current")
    static let previous = Secret("whsec_fuzz_previous")
    static let signedAt: Int64 = 1_800_000_000

    public static func check(_ input: [UInt8]) {
        checkVerification(input)
        checkHeader(input)
        checkParsing(input)
    }

    static func checkVerification(_ body: [UInt8]) {
        let verifier = StripeSignatureVerifier(secrets: [secret, previous], now: { Date(timeIntervalSince1970: TimeInterval(signedAt)) })
        func verifies(_ header: String?) -> Bool { (try? verifier.verify(header: header, body: body)) != nil }
        let good = StripeSignatureVerifier.header(timestamp: signedAt, body: body, secrets: [secret])
        let rotated = StripeSignatureVerifier.header(timestamp: signedAt, body: body, secrets: [Secret("whsec_other"), previous])
        guard verifies(good), verifies(rotated) else { preconditionFailure("a correctly signed body of \(body.count) bytes was refused") }
        let stale = StripeSignatureVerifier.header(timestamp: signedAt - 301, body: body, secrets: [secret])
        let foreign = StripeSignatureVerifier.header(timestamp: signedAt, body: body, secrets: [Secret("whsec_other")])
        var flipped = Array(good.utf8)
        let last = flipped.count - 1
        flipped[last] = flipped[last] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        let forged: [String?] = [
            nil, "", stale, foreign, String(decoding: flipped, as: UTF8.self), good.replacingOccurrences(of: "v1=", with: "v0="),
            "t=\(signedAt),v1=" + String(decoding: body.prefix(64), as: UTF8.self),
        ]
        for header in forged where verifies(header) { preconditionFailure("a forged Stripe-Signature verified: \(header?.prefix(60) ?? "none")") }
    }

    /// The input as a header: refused unless it happens to sign an empty body.
    static func checkHeader(_ input: [UInt8]) {
        let verifier = StripeSignatureVerifier(secrets: [secret], tolerance: .infinity)
        let header = String(decoding: input.prefix(4_096), as: UTF8.self)
        if (try? verifier.verify(header: header, body: [])) != nil {
            preconditionFailure("an arbitrary header verified: \(header.prefix(60))")
        }
    }

    static func checkParsing(_ body: [UInt8]) {
        guard let event = try? StripeEvent.parse(body) else { return }
        guard !event.id.isEmpty, event.id.utf8.count <= 255, !event.orderingKey.isEmpty, event.orderingKey.utf8.count <= 255 else {
            preconditionFailure("a parsed Stripe event has an empty or unbounded id or ordering key")
        }
        if let owner = event.owner, (owner.appUserID?.utf8.count ?? 0) > 500 || (owner.checkoutID?.utf8.count ?? 0) > 500 {
            preconditionFailure("a parsed Stripe owner claim is longer than Stripe's metadata allows")
        }
    }
}
