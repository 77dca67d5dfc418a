import HTTPServer
import Kafka
import Postgres
import ServiceRuntime
import Telemetry
import WebhookSenderService

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
                    messaging: MessagingSettings.fromEnvironment(&reader, service: "webhook-sender", logger: logger)
                )
            },
            start: { settings, logger, metrics in
                let application = try buildWebhookSenderApplication(
                    configuration: settings.configuration, messaging: settings.messaging, http: settings.http, logger: logger, metrics: metrics)
                logger.info(
                    "webhook-sender starting",
                    metadata: [
                        "http.port": String(settings.http.port), "kafka.group": settings.configuration.groupID,
                        "concurrency": String(settings.configuration.dispatcher.concurrency),
                    ])
                let pool = application.pool
                return ServiceLaunch(services: application.services, afterStop: { await pool.close() })
            })
    }
}
