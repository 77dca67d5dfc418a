import BillingModel
import Foundation
import ServiceSettings

/// ``StripeSignatureVerifier`` as the receiver's ``WebhookVerifier``: the
/// `Stripe-Signature` header, every secret of a rotation, the timestamp
/// tolerance. Any refusal but a missing header is a bad signature.
public struct StripeWebhookVerifier: WebhookVerifier {
    let signature: StripeSignatureVerifier

    public init(secrets: [Secret], tolerance: TimeInterval = StripeSignatureVerifier.defaultTolerance) {
        signature = StripeSignatureVerifier(secrets: secrets, tolerance: tolerance)
    }

    public var provider: Provider { .stripe }

    public var signatureHeader: String { "stripe-signature" }

    public func verify(header: (String) -> String?, body: [UInt8], remoteAddress: String?) throws(WebhookVerificationError) {
        let value = header(signatureHeader)
        do {
            try signature.verify(header: value, body: body)
        } catch .missingHeader {
            throw .missingSignature(header: signatureHeader)
        } catch {
            throw .badSignature(header: signatureHeader)
        }
    }
}
