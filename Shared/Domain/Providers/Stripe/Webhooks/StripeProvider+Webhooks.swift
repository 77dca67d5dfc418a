import BillingModel
import Foundation
import ServiceSettings

extension StripeProvider: WebhookProviding {
    public var webhookFormat: any WebhookFormat.Type { StripeWebhookFormat.self }

    /// A fetched Subscription, Checkout Session or PaymentIntent, read by ``StripeFetchedObject``.
    public func normalize(found snapshot: ProviderSnapshot, name: String) throws(WebhookPayloadError) -> BillingEvent {
        do {
            return try StripeFetchedObject.normalize(snapshot.body.bytes, name: name, provider: .stripe, fetchedAt: snapshot.fetchStartedAt)
        } catch {
            throw error.payloadError
        }
    }

    public func verifier(secret: Secret) -> any WebhookVerifier { StripeWebhookVerifier(secrets: [secret]) }

    /// `Stripe-Signature: t=<time>,v1=<HMAC-SHA256 of "<time>.<body>">`.
    public func signatureHeader(body: [UInt8], secret: Secret, at time: Date) -> (name: String, value: String) {
        ("Stripe-Signature", StripeSignatureVerifier.header(timestamp: Int64(time.timeIntervalSince1970), body: body, secrets: [secret]))
    }
}
