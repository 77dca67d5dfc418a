import Timing
import Foundation
import HTTPServer
import Kafka
import BillingModel
import Telemetry
import Webhooks

/// `POST /api/webhooks/{provider}`: verify over the raw body, publish the
/// envelope, and answer 200 only after the broker acknowledged it.
///
/// Answers: 200 `{"success":true}`; 401 for a missing or wrong signature (or a
/// source address outside Paystack's allow-list), nothing published; 404 for a
/// provider that is not enabled; 413 for a body over the limit; 503 with
/// `Retry-After` when the broker did not acknowledge in time, so the provider
/// retries. Logs name the provider, event and dedup key, never the body or
/// the signature; a published webhook logs one line, the server's access line
/// (`request`, at info) with the webhook's and the record's fields on it.
///
/// A deferred route (``DeferredRouteHandler``): verifying and parsing run on
/// the HTTP thread that read the request (tens of microseconds of CPU, no
/// waiting), the envelope is handed to the producer there, and the delivery
/// report's callback, on the producer's poll thread, builds the 200 or 503
/// and resumes the connection. No Swift task, continuation or cooperative
/// pool is involved: those thread hand-offs cost several times the real
/// work per webhook (issue 22). 401, 404 and 413 are answered before
/// anything is published.
public struct WebhookRoutes: Sendable {
    /// The route template.
    public static let path = "/api/webhooks/{provider}"
    /// The 200 body.
    static let accepted = Array(#"{"success":true}"#.utf8)

    let verifiers: [Provider: any WebhookVerifier]
    let publisher: any WebhookPublishing
    let configuration: WebhookReceiverConfiguration
    let metrics: WebhookMetrics
    let now: @Sendable () -> Date

    /// Registers the route on `registrar`.
    func mount(on registrar: some RouteRegistrar) {
        registrar.deferred(.post, Self.path) { request, context, completion throws(HTTPError) in
            try handle(request, context: context, completion: completion)
        }
    }

    /// Verifies and publishes; throws the answers decided before publishing,
    /// and completes `completion` from the publish's outcome.
    func handle(_ request: HTTPRequest, context: RequestContext, completion: ResponseCompletion) throws(HTTPError) {
        let name = try context.parameters.require("provider")
        guard let provider = Provider(rawValue: name), let verifier = verifiers[provider] else {
            throw HTTPError(.notFound, "Webhook provider not enabled")
        }
        let logger = context.logger.with("webhook.provider", provider.rawValue)
        // The server refuses larger bodies before reading them; this covers
        // direct router use and keeps both limits one.
        guard request.body.count <= configuration.maxBodyBytes else {
            metrics.count(provider, .tooLarge)
            throw Self.tooLarge(configuration.maxBodyBytes)
        }

        let remoteAddress = ClientAddress.resolve(request, trustForwardedFor: configuration.trustForwardedFor)
        do throws(WebhookVerificationError) {
            try verifier.verify(header: { request.headers[$0] }, body: request.body, remoteAddress: remoteAddress)
        } catch .bodyTooLarge {
            metrics.count(provider, .tooLarge)
            throw Self.tooLarge(min(configuration.maxBodyBytes, WebhookReceiverConfiguration.maximumBodyLimit))
        } catch {
            metrics.count(provider, .invalidSignature)
            logger.warning("webhook refused", metadata: ["webhook.reason": error.description, "http.body_bytes": String(request.body.count)])
            throw HTTPError(.unauthorized, "Invalid signature", code: "invalid_signature")
        }

        // One parse of the body gives the dedup key, event name and topic key.
        let read = ProviderWebhooks.read(provider, body: request.body, receivedAt: now())
        let envelope = read.envelope, key = read.topicKey
        // Built once, for whichever line this delivery ends with.
        let described = [
            "webhook.dedup_key": String(envelope.id.prefix(160)),
            "webhook.event": String(envelope.eventName.prefix(100)),
            "kafka.key": String(key.prefix(220)),
        ]
        if !read.isUnderstood {
            metrics.countUnparsed(provider)
            logger.warning("webhook body not understood; publishing it for the projector to dead-letter", metadata: described)
        }
        let value = envelope.encodedRecord()

        let clock = ContinuousClock()
        let started = clock.now
        publisher.publish(key: key, value: value) { [metrics, retryAfter = configuration.retryAfterSeconds] result in
            metrics.observePublish(provider, seconds: (clock.now - started).inSeconds)
            switch result {
            case .success(let report):
                metrics.count(provider, .published)
                var response = HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"], body: Self.accepted)
                // On the server's access line, not a line of its own: one line per
                // webhook (docs/testing-and-benchmarks.md, issue 22).
                if logger.isEnabled(.info) {
                    var described = described
                    described["webhook.provider"] = provider.rawValue
                    described["kafka.partition"] = String(report.partition)
                    described["kafka.offset"] = String(report.offset)
                    response.accessLogMetadata = described
                }
                completion.complete(response)
            case .failure(let error):
                metrics.count(provider, .publishFailed)
                var described = described
                described["error"] = error.description
                logger.error("webhook not stored; answering 503 so the provider retries", metadata: described)
                completion.fail(
                    HTTPError(
                        .serviceUnavailable, "Webhook could not be stored, retry later",
                        headers: ["Retry-After": String(retryAfter)]))
            }
        }
    }

    static func tooLarge(_ limit: Int) -> HTTPError {
        HTTPError(.contentTooLarge, "Request body exceeds \(limit) bytes")
    }
}
