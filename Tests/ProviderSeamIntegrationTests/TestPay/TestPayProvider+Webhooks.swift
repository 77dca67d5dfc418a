import BillingModel
import CryptoPrimitives
import Foundation
import JSONCodec
import ServiceSettings
import Webhooks

/// TestPay's webhook body: `{"id":"evt_…","type":"subscription.updated","livemode":false,
/// "subscription":{"id","status","plan","current_period_end","metadata":{…}}}`.
enum TestPayWebhook: WebhookFormat {
    static func eventName(root: JSONValue) -> String? { root["type"]?.string }

    static func dedupKey(root: JSONValue?, body: [UInt8]) -> String {
        root?["id"]?.string.map { "testpay:\($0)" } ?? "testpay:sha256:\(bodyDigest(body))"
    }

    static func normalize(root: JSONValue) throws(WebhookPayloadError) -> BillingEvent {
        guard let type = root["type"]?.string else { throw .missingField("type") }
        guard let subscription = root["subscription"], let id = subscription["id"]?.string else { throw .missingField("subscription.id") }
        let kind: BillingEventKind =
            switch type {
            case "subscription.created": .subscriptionCreated
            case "subscription.updated": .subscriptionUpdated
            case "subscription.expired": .subscriptionExpired
            default: .unknown(type)
            }
        var event = BillingEvent(kind: kind, provider: .testpay, providerEventName: type, entityKey: TopicKey.make(.testpay, "sub_\(id)"))
        event.subscriptionID = id
        event.status = subscription["status"]?.string
        event.productID = subscription["plan"]?.string
        event.variantID = event.productID
        event.renewsAt = subscription["current_period_end"]?.date
        event.cancelled = subscription["cancel_at_period_end"]?.bool
        event.createdAt = subscription["created"]?.date
        event.updatedAt = root["created"]?.date
        event.orderingTimestamp = event.updatedAt
        event.testMode = root["livemode"]?.bool.map { !$0 }
        var metadata: [String: String] = [:]
        for (key, value) in subscription["metadata"]?.object ?? [:] { metadata[key] = value.string }
        event.customData = metadata
        event.appUserID = metadata[CustomDataKeys.appUserID]
        event.checkoutID = metadata[CustomDataKeys.checkoutID]
        return event
    }
}

/// HMAC-SHA256 of the body, hex, in `TestPay-Signature`.
struct TestPayWebhookVerifier: WebhookVerifier {
    let secret: Secret

    var provider: Provider { .testpay }

    var signatureHeader: String { "TestPay-Signature" }

    func verify(header: (String) -> String?, body: [UInt8], remoteAddress: String?) throws(WebhookVerificationError) {
        guard let signature = header(signatureHeader) else { throw .missingSignature(header: signatureHeader) }
        let expected = Hex.encode(HMAC.sha256(key: Array(secret.reveal().utf8), message: body))
        guard constantTimeEquals(Array(signature.lowercased().utf8), Array(expected.utf8)) else { throw .badSignature(header: signatureHeader) }
    }
}

extension TestPayProvider: WebhookProviding {
    var webhookFormat: any WebhookFormat.Type { TestPayWebhook.self }

    func normalize(found snapshot: ProviderSnapshot, name: String) throws(WebhookPayloadError) -> BillingEvent {
        var event = try TestPayWebhook.normalize(body: snapshot.body.bytes)
        event.kind = .subscriptionObserved
        event.orderingTimestamp = snapshot.fetchStartedAt
        return event
    }

    func verifier(secret: Secret) -> any WebhookVerifier { TestPayWebhookVerifier(secret: secret) }

    func signatureHeader(body: [UInt8], secret: Secret, at time: Date) -> (name: String, value: String) {
        ("TestPay-Signature", Hex.encode(HMAC.sha256(key: Array(secret.reveal().utf8), message: body)))
    }
}
