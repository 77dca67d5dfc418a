import BillingModel
import Foundation
import JSONCodec

/// Stripe's webhook body (an Event object) as the receiver and the projector
/// read it: ``StripeWebhook`` normalises it, the event's `id` dedups it.
public enum StripeWebhookFormat: WebhookFormat {
    public static func normalize(root: JSONValue) throws(WebhookPayloadError) -> BillingEvent {
        do {
            return try StripeWebhook.normalize(root: root, provider: .stripe)
        } catch {
            throw error.payloadError
        }
    }

    /// `type`.
    public static func eventName(root: JSONValue) -> String? { root["type"]?.string }

    /// `stripe:<evt_…>`: Stripe keeps one event's id across its retries and
    /// manual resends; a body without one is keyed by its digest.
    public static func dedupKey(root: JSONValue?, body: [UInt8]) -> String {
        guard let id = root?["id"]?.string, !id.isEmpty, id.utf8.count <= 255 else {
            return TopicKey.make(.stripe, "sha256:\(bodyDigest(body))")
        }
        return TopicKey.make(.stripe, id)
    }
}

extension StripeEventError {
    /// The same refusal in the webhook parser's words.
    var payloadError: WebhookPayloadError {
        switch self {
        case .notJSON: .malformedJSON("not a JSON value")
        case .notAnEvent: .unexpectedShape("not a Stripe event object")
        case .missingField(let path): .missingField(path)
        case .unexpectedObject(let expected, let found): .unexpectedShape("a \(found.prefix(40)) where a \(expected) belongs")
        }
    }
}
