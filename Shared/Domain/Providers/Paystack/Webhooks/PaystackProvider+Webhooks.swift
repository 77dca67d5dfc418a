import BillingModel
import CryptoPrimitives
import Foundation
import ServiceSettings

extension PaystackProvider: WebhookProviding {
    public var webhookFormat: any WebhookFormat.Type { PaystackWebhook.self }

    /// A fetched subscription is read as a subscription event would be (the
    /// status is Paystack's own) and observed at the fetch's start; a fetched
    /// transaction as `charge.success`, or as a refund when reversed.
    public func normalize(found snapshot: ProviderSnapshot, name: String) throws(WebhookPayloadError) -> BillingEvent {
        let body = snapshot.body.bytes
        guard snapshot.entity == .subscription else {
            var event = try PaystackWebhook.normalize(envelope: body, name: "charge.success", kind: nil)
            switch event.status {
            case "success": break
            case "reversed":
                // Reversed (refunded or charged back) some time before the
                // fetch: ordered then, not at the charge's `paid_at`.
                event.kind = .refundProcessed
                event.orderingTimestamp = snapshot.fetchStartedAt
            default: event.kind = .unknown("\(name).\(event.status ?? "unknown")")
            }
            return event
        }
        var event = try PaystackWebhook.normalize(envelope: body, name: "subscription.snapshot", kind: .subscriptionObserved)
        event.cancelled = ["non-renewing", "cancelled", "complete", "completed"].contains(event.status ?? "")
        event.orderingTimestamp = snapshot.fetchStartedAt
        return event
    }

    public func verifier(secret: Secret) -> any WebhookVerifier { PaystackWebhookVerifier(secretKey: secret) }

    /// `x-paystack-signature`: the hex HMAC-SHA-512 of the body; no timestamp.
    public func signatureHeader(body: [UInt8], secret: Secret, at time: Date) -> (name: String, value: String) {
        ("x-paystack-signature", Hex.encode(HMAC.sha512(key: Array(secret.reveal().utf8), message: body)))
    }
}
