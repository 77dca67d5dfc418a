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
/// each one on `storefront.webhooks.v1` before answering 200. Configuration
/// comes from the environment: `PORT` (default 8083) and the other HTTP
/// settings, `WEBHOOK_MAX_BODY_BYTES` (default 1 MiB), `WEBHOOK_PUBLISH_TIMEOUT`
/// (default 5 s), `WEBHOOK_TRUST_FORWARDED_FOR` (default false), `KAFKA_BROKERS`
/// and the other broker settings, `LOG_LEVEL`, and the providers' webhook
/// settings only: `LEMONSQUEEZY_WEBHOOK_SECRET`, `PAYSTACK_SECRET_KEY` (Paystack
/// signs with it), `PAYSTACK_WEBHOOK_IP_ALLOWLIST`; secrets may come from
/// `*_FILE`. It never reads the Lemon Squeezy API key or store id.
@main
struct WebhookReceiverMain {
    static func main() async {
        await ServiceLauncher.run(
            "webhook-receiver",
            read: { reader, logger in
                (
                    http: HTTPServerConfiguration.fromEnvironment(&reader, defaultPort: 8083),
                    configuration: WebhookReceiverConfiguration.fromEnvironment(&reader),
                    messaging: MessagingSettings.fromEnvironment(&reader, service: "webhook-receiver", logger: logger),
                    providers: ProvidersConfiguration.fromEnvironment(&reader, uses: .webhooks)
                )
            },
            start: { settings, logger, metrics in
                let verifiers = settings.providers.map(webhookVerifiers(for:)) ?? []
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
