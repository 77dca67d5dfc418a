import BillingModel
import CryptoPrimitives
import Foundation
import ServiceSettings

extension LemonSqueezyProvider: WebhookProviding {
    public var webhookFormat: any WebhookFormat.Type { LemonSqueezyWebhook.self }

    /// A fetched subscription is observed at the fetch's start; a fetched
    /// order is an order as paid, or refunded, by its status.
    public func normalize(found snapshot: ProviderSnapshot, name: String) throws(WebhookPayloadError) -> BillingEvent {
        let body = snapshot.body.bytes
        guard snapshot.entity == .subscription else {
            var event = try LemonSqueezyWebhook.normalize(document: body, name: name, kind: .orderCreated)
            switch event.status {
            case "paid": break
            case "refunded", "partial_refund": event.kind = .orderRefunded
            default: event.kind = .unknown("\(name).\(event.status ?? "unknown")")
            }
            return event
        }
        var event = try LemonSqueezyWebhook.normalize(document: body, name: name, kind: .subscriptionObserved)
        event.orderingTimestamp = snapshot.fetchStartedAt
        return event
    }

    public func verifier(secret: Secret) -> any WebhookVerifier { LemonSqueezyWebhookVerifier(secret: secret) }

    /// `X-Signature`: the hex HMAC-SHA-256 of the body; no timestamp.
    public func signatureHeader(body: [UInt8], secret: Secret, at time: Date) -> (name: String, value: String) {
        ("X-Signature", Hex.encode(HMAC.sha256(key: Array(secret.reveal().utf8), message: body)))
    }
}
