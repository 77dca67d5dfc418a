import HTTPServer
import Kafka
import Postgres
import ServiceRuntime
import Telemetry
import WebhookSenderService
import EntitlementSigning
import ServiceSettings

/// `webhook-sender`: delivers entitlement changes (`storefront.entitlements.v1`)
/// and purchase events (`storefront.purchase-events.v1`) to the endpoints
/// registered with `storefront endpoints`, signed as the Standard Webhooks
/// specification describes.
/// Its settings: `webhook-sender --help-settings` (health and metrics on port 8086).
@main
struct WebhookSenderMain {
    static func main() async {
        await ServiceLauncher.run(
            "webhook-sender", settings: WebhookSenderBinary.settings,
            read: { reader, logger in
                (
                    http: HTTPServerConfiguration.fromEnvironment(&reader, defaultPort: 8086),
                    configuration: WebhookSenderConfiguration.fromEnvironment(&reader),
                    verifier: EntitlementChangeVerifier.fromEnvironment(&reader),
                    messaging: MessagingSettings.fromEnvironment(&reader, service: "webhook-sender", logger: logger)
                )
            },
            start: { settings, logger, metrics in
                // Nil only when the reader reported why (and the launcher exited).
                guard let verifier = settings.verifier else {
                    throw ConfigurationError(problems: [
                        ConfigurationProblem(variable: "ENTITLEMENT_VERIFY_KEYS_FILE", message: "configuration incomplete")
                    ])
                }
                let application = try buildWebhookSenderApplication(
                    configuration: settings.configuration, verifier: verifier, messaging: settings.messaging, http: settings.http, logger: logger,
                    metrics: metrics)
                logger.info(
                    "webhook-sender starting",
                    metadata: [
                        "http.port": String(settings.http.port), "kafka.group": settings.configuration.groupID,
                        "concurrency": String(settings.configuration.dispatcher.concurrency),
                        "entitlements.verify_key_ids": verifier.keyIDs.joined(separator: ","),
                    ])
                let pool = application.pool
                return ServiceLaunch(services: application.services, afterStop: { await pool.close() })
            })
    }
}
