import CryptoPrimitives
import ServiceSettings
import BillingModel

/// Lemon Squeezy: `X-Signature` is the lowercase hex HMAC-SHA256 of the raw
/// body under the webhook signing secret. Lemon Squeezy publishes no source
/// addresses, so there is no allow-list.
public struct LemonSqueezyWebhookVerifier: WebhookVerifier {
    public var provider: Provider { .lemonsqueezy }
    public var signatureHeader: String { "x-signature" }
    let secret: Secret

    public init(secret: Secret) {
        self.secret = secret
    }

    public func verify(header: (String) -> String?, body: [UInt8], remoteAddress: String?) throws(WebhookVerificationError) {
        try HexHMACCheck.run(header: signatureHeader, algorithm: .sha256, secret: secret, header: header, body: body)
    }
}
