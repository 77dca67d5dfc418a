import CryptoPrimitives
import Foundation
import HTTPClient

/// One attempt to deliver one event to one endpoint: the signed request
/// (Standard Webhooks headers) and what came of it.
public enum DeliveryAttempt {
    /// Longest `last_error` kept: enough to read, never an endpoint's whole answer.
    static let maximumReasonLength = 500

    /// The request's headers at `now`: `webhook-id` (the event id, the same on
    /// every attempt), `webhook-timestamp` and `webhook-signature` (one
    /// signature per secret in use), and the content type.
    /// - Throws: ``StandardWebhookSignature/SecretError`` for a stored secret that is not `whsec_…`.
    public static func headers(for delivery: Delivery, endpoint: WebhookEndpoint, at now: Date) throws -> HTTPHeaders {
        let timestamp = Int64(now.timeIntervalSince1970.rounded(.down))
        let keys = try endpoint.signingSecrets(at: now).map { try StandardWebhookSignature.key(of: $0) }
        let signature = StandardWebhookSignature.header(id: delivery.eventID, timestamp: timestamp, body: Array(delivery.body.utf8), keys: keys)
        return [
            "content-type": "application/json", "webhook-id": delivery.eventID, "webhook-timestamp": String(timestamp),
            "webhook-signature": signature,
        ]
    }

    /// Sends `delivery` through `transport`; any failure becomes ``DeliveryOutcome/failed(status:reason:)``.
    public static func perform(
        _ delivery: Delivery, to endpoint: WebhookEndpoint, through transport: any WebhookTransport, at now: Date
    ) async
        -> DeliveryOutcome
    {
        do {
            let headers = try headers(for: delivery, endpoint: endpoint, at: now)
            let status = try await transport.post(url: endpoint.url, headers: headers, body: Array(delivery.body.utf8))
            return (200..<300).contains(status) ? .delivered(status: status) : .failed(status: status, reason: "answered \(status)")
        } catch {
            return .failed(status: nil, reason: String(String(describing: error).prefix(maximumReasonLength)))
        }
    }
}
