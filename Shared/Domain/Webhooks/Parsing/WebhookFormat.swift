import CryptoPrimitives
import Foundation
import BillingModel
import JSONCodec
import ServiceSettings

/// One provider's webhook body: how a verified delivery becomes a
/// ``BillingEvent``, its dedup key and its event name. Each provider's
/// parser conforms, and its ``WebhookProviding`` part names it;
/// ``ProviderWebhooks`` is the one way in for the services.
public protocol WebhookFormat {
    /// Normalises a parsed delivery. Unknown event names are not errors.
    static func normalize(root: JSONValue) throws(WebhookPayloadError) -> BillingEvent
    /// The event name as sent, read even when the rest of the body is not understood.
    static func eventName(root: JSONValue) -> String?
    /// The delivery's dedup key (the envelope `id`); `root` is nil when the body is not JSON.
    static func dedupKey(root: JSONValue?, body: [UInt8]) -> String
    /// What the time of receipt changes in an event (Paystack orders some
    /// state changes by it); nothing by default.
    static func settle(_ event: inout BillingEvent, receivedAt: Date)
    /// The delivery's keys only: its kind and the ids of what it is about
    /// (subscription, order, invoice, transaction, customer), the fields
    /// ``ProviderWebhooks/keys(_:)`` promises, read without the rest of the
    /// normalisation (dates, prices, custom data, card). The same ids as
    /// ``normalize(root:)``'s; the default is that normalisation.
    /// - Throws: as ``normalize(root:)``, for the same bodies.
    static func keys(root: JSONValue) throws(WebhookPayloadError) -> BillingEvent
}

extension WebhookFormat {
    public static func settle(_ event: inout BillingEvent, receivedAt: Date) {}

    public static func keys(root: JSONValue) throws(WebhookPayloadError) -> BillingEvent { try normalize(root: root) }

    /// Parses and normalises one raw body (what the tests and the fuzz targets feed).
    /// - Throws: ``WebhookPayloadError`` for invalid JSON or a body the provider never sends.
    public static func normalize(body: [UInt8]) throws(WebhookPayloadError) -> BillingEvent {
        try normalize(root: JSONValue.webhookBody(body))
    }

    /// Lowercase hex SHA-256 of a body: the dedup key of a delivery without a usable id.
    public static func bodyDigest(_ body: [UInt8]) -> String {
        Hex.encode(SHA256.hash(body))
    }
}

/// A provider's webhook part: how its deliveries and its fetched objects
/// read as ``BillingEvent``s. Each provider's `Webhooks/` folder conforms its
/// definition.
public protocol WebhookProviding: ProviderDefinition {
    /// How this provider's webhook bodies are read.
    var webhookFormat: any WebhookFormat.Type { get }
    /// An object the reconciler fetched (``ProviderSnapshot``, outcome
    /// `.found`), read as an event named `name`, as a webhook about it would
    /// be read; the snapshot's own rules (ordering, statuses) apply.
    /// - Throws: ``WebhookPayloadError`` for a body the provider never sends.
    func normalize(found snapshot: ProviderSnapshot, name: String) throws(WebhookPayloadError) -> BillingEvent
    /// A verifier of deliveries signed with `secret`, and no other check
    /// (the configured verifier may add some, such as an address allow-list).
    func verifier(secret: Secret) -> any WebhookVerifier
    /// The header the provider would send with `body` signed with `secret`
    /// at `time`: what the tests, the fuzz targets and the benchmarks sign with.
    func signatureHeader(body: [UInt8], secret: Secret, at time: Date) -> (name: String, value: String)
}

extension Provider {
    /// This provider's webhook part.
    public var webhookRules: any WebhookProviding { ProviderDirectory.part((any WebhookProviding).self, of: self) }

    /// This provider's webhook format.
    var webhookFormat: any WebhookFormat.Type { webhookRules.webhookFormat }
}
