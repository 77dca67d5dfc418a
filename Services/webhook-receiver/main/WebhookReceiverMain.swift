import Timing
import HTTPServer
import Kafka
import BillingModel
import ProviderConfiguration
import ServiceRuntime
import Telemetry
import WebhookReceiverService
import Webhooks

/// `webhook-receiver`: verifies the payment providers' webhooks and stores
/// each one on `storefront.webhooks.v1` before answering 200. It reads only
/// the providers' webhook settings, never an API key. Its settings are
/// declared in ``WebhookReceiverBinary/settings``: `webhook-receiver
/// --help-settings` lists them.
@main
struct WebhookReceiverMain {
    static func main() async {
        await ServiceLauncher.run(
            "webhook-receiver", settings: WebhookReceiverBinary.settings,
            read: { reader, logger in
                (
                    http: HTTPServerConfiguration.fromEnvironment(&reader, defaultPort: 8083),
                    configuration: WebhookReceiverConfiguration.fromEnvironment(&reader),
                    messaging: MessagingSettings.fromEnvironment(&reader, service: "webhook-receiver", logger: logger),
                    providers: ProvidersConfiguration.fromEnvironment(&reader, uses: .webhooks)
                )
            },
            start: { settings, logger, metrics in
                let verifiers = settings.providers?.webhookVerifiers ?? []
                let configuration = settings.configuration
                let application = try buildWebhookReceiverApplication(
                    verifiers: verifiers, messaging: settings.messaging, configuration: configuration, http: settings.http,
                    logger: logger, metrics: metrics)
                logger.info(
                    "webhook-receiver starting",
                    metadata: [
                        "http.port": String(settings.http.port),
                        "webhook.providers": verifiers.map(\.provider.rawValue).joined(separator: ","),
                        "webhook.max_body_bytes": String(configuration.maxBodyBytes),
                        "webhook.publish_timeout_ms": String(configuration.publishTimeout.wholeMilliseconds),
                        "webhook.trust_forwarded_for": String(configuration.trustForwardedFor),
                        "kafka.brokers": settings.messaging.client.bootstrapServers.joined(separator: ","),
                    ])
                return ServiceLaunch(services: application.services)
            })
    }
}
