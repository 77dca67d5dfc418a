import Foundation
import CryptoPrimitives
import BillingModel

/// The SHA-256 used in dedup keys, from the Crypto module, so callers need
/// not pass a digest closure.
public enum WebhookDigest {
    /// Lowercase hex SHA-256 of `bytes`.
    public static func sha256Hex(_ bytes: [UInt8]) -> String {
        Hex.encode(SHA256.hash(bytes))
    }
}

extension LemonSqueezyWebhook {
    /// ``dedupKey(body:sha256Hex:)`` with Crypto's SHA-256.
    public static func dedupKey(body: [UInt8]) -> String {
        dedupKey(body: body, sha256Hex: WebhookDigest.sha256Hex)
    }
}

extension PaystackWebhook {
    /// ``dedupKey(body:sha256Hex:)`` with Crypto's SHA-256.
    public static func dedupKey(body: [UInt8]) -> String {
        dedupKey(body: body, sha256Hex: WebhookDigest.sha256Hex)
    }
}

extension ProviderWebhooks {
    /// ``dedupKey(_:body:sha256Hex:)`` with Crypto's SHA-256.
    public static func dedupKey(_ provider: Provider, body: [UInt8]) -> String {
        dedupKey(provider, body: body, sha256Hex: WebhookDigest.sha256Hex)
    }

    /// ``read(_:body:receivedAt:sha256Hex:)`` with Crypto's SHA-256.
    public static func read(_ provider: Provider, body: [UInt8], receivedAt: Date) -> WebhookRead {
        read(provider, body: body, receivedAt: receivedAt, sha256Hex: WebhookDigest.sha256Hex)
    }

    /// ``envelope(_:body:receivedAt:sha256Hex:)`` with Crypto's SHA-256.
    public static func envelope(_ provider: Provider, body: [UInt8], receivedAt: Date) -> WebhookEnvelope {
        envelope(provider, body: body, receivedAt: receivedAt, sha256Hex: WebhookDigest.sha256Hex)
    }
}
