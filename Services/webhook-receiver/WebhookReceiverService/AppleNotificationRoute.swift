import AppStoreNotifications
import BillingModel
import Foundation
import HTTPServer
import Telemetry

/// `POST /api/webhooks/apple`: App Store Server Notifications V2. Verifies
/// the signed payload (``SignedNotificationVerifier``: the chain to a
/// configured root, Apple's marker OIDs, the signature, the app and
/// environment) and publishes the payload, as signed, on
/// `storefront.apple.notifications.v1`, answering 200 only after the broker
/// acknowledged it (Apple retries anything else).
///
/// Answers: 200 `{"success":true}`; 401 when the body, chain or signature
/// does not verify, 403 when a verified notification is for another app or
/// environment, 422 when a verified payload is not a notification (all three
/// publish nothing); 404 when `APPLE_ROOT_CERTIFICATES_FILE` is not set;
/// 413 over 64 KiB; 503 with `Retry-After` when the broker did not acknowledge.
///
/// Its own topic, not `storefront.webhooks.v1`: that topic's envelope is a
/// payment provider's event for the projector, keyed by a provider's entity,
/// and Apple is no payment provider here. Its only reader is the reporter
/// of external purchase tokens (the webhook-sender).
struct AppleNotificationRoute: Sendable {
    static let path = "/api/webhooks/apple"
    /// A real notification body is 4-6 KB; the verifier refuses a longer JWS anyway.
    static let maximumBodyBytes = 64 * 1024

    let verifier: SignedNotificationVerifier?
    let publisher: any WebhookPublishing
    let metrics: AppleNotificationMetrics
    let retryAfterSeconds: Int

    func mount(on registrar: some RouteRegistrar) {
        registrar.deferred(.post, Self.path) { request, context, completion throws(HTTPError) in
            try handle(request, context: context, completion: completion)
        }
    }

    func handle(_ request: HTTPRequest, context: RequestContext, completion: ResponseCompletion) throws(HTTPError) {
        guard let verifier else {
            metrics.count(.notConfigured)
            throw HTTPError(.notFound, "App Store notifications are not configured", code: "apple_notifications_not_configured")
        }
        guard request.body.count <= Self.maximumBodyBytes else {
            metrics.count(.tooLarge)
            throw HTTPError(.contentTooLarge, "Request body exceeds \(Self.maximumBodyBytes) bytes")
        }
        let logger = context.logger.with("webhook.provider", "apple")
        let notification: AppStoreNotification
        do throws(AppStoreNotificationError) {
            notification = try verifier.verify(body: request.body)
        } catch {
            logger.warning("App Store notification refused", metadata: ["webhook.reason": error.description])
            if error.isAuthenticationFailure {
                metrics.count(.invalidSignature)
                throw HTTPError(.unauthorized, "Invalid signature", code: "invalid_signature")
            }
            if case .malformedPayload = error {
                metrics.count(.notUnderstood)
                throw HTTPError(.unprocessableContent, "Notification not understood", code: "apple_notification_not_understood")
            }
            metrics.count(.foreign)
            throw HTTPError(.forbidden, "Notification is for another app or environment", code: "apple_notification_foreign")
        }
        let described = [
            "apple.notification_uuid": String(notification.notificationUUID.prefix(100)),
            "apple.notification_type": String(notification.notificationType.prefix(60)),
            "apple.subtype": String((notification.subtype ?? "").prefix(60)),
        ]
        // One token's notifications on one partition, in order.
        let key = notification.externalPurchaseToken?.externalPurchaseId ?? notification.notificationUUID
        publisher.publish(key: "apple:\(key)", value: notification.payload) { [metrics, retryAfterSeconds] result in
            switch result {
            case .success:
                metrics.count(.published)
                var response = HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"], body: WebhookRoutes.accepted)
                response.accessLogMetadata = described
                completion.complete(response)
            case .failure(let error):
                metrics.count(.publishFailed)
                var described = described
                described["error"] = error.description
                logger.error("App Store notification not stored; answering 503 so Apple retries", metadata: described)
                completion.fail(
                    HTTPError(
                        .serviceUnavailable, "Notification could not be stored, retry later", headers: ["Retry-After": String(retryAfterSeconds)]))
            }
        }
    }
}
