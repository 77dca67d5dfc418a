import Foundation
import HTTPServer
import Models
import Providers
import MessagingSetup
import ProviderSetup
import ServiceHTTP
import ServiceRuntime
import Telemetry
import WebhookReceiverService

/// `webhook-receiver`: verifies the payment providers' webhooks and stores
/// each one on `storefront.webhooks.v1` before answering 200. Configuration
/// comes from the environment: `PORT` (default 8083) and the other HTTP
/// settings, `WEBHOOK_MAX_BODY_BYTES` (default 1 MiB), `WEBHOOK_PUBLISH_TIMEOUT`
/// (default 5 s), `WEBHOOK_TRUST_FORWARDED_FOR` (default false), `KAFKA_BROKERS`
/// and the other broker settings, `LOG_LEVEL`, and the providers' settings
/// (the same variables as the other services; secrets may come from `*_FILE`).
@main
struct WebhookReceiverMain {
    static func main() async {
        var reader = ConfigReader(Environment())
        let logger = Logger.bootstrap(service: "webhook-receiver", reader: &reader)
        let http = HTTPServerConfiguration.fromEnvironment(&reader, defaultPort: 8083)
        let configuration = WebhookReceiverConfiguration.fromEnvironment(&reader)
        let messaging = MessagingSettings.fromEnvironment(&reader, service: "webhook-receiver", logger: logger)
        let providers = ProviderSetup.configuration(&reader)
        do {
            try reader.finish()
        } catch {
            ServiceConfigurationFailure.exit(error, logger: logger)
        }

        let metrics = MetricsRegistry()
        ProcessMetrics.register(into: metrics)
        let verifiers = providers.map(webhookVerifiers(for:)) ?? []
        let application: WebhookReceiverApplication
        do {
            application = try buildWebhookReceiverApplication(
                verifiers: verifiers, messaging: messaging, configuration: configuration, http: http,
                logger: logger, metrics: metrics)
        } catch {
            // A setup fault, not a crash: exit like any other configuration problem.
            ServiceConfigurationFailure.exit(error, logger: logger)
        }

        logger.info("webhook-receiver starting", metadata: [
            "http.port": String(http.port),
            "webhook.providers": verifiers.map(\.provider.rawValue).joined(separator: ","),
            "webhook.max_body_bytes": String(configuration.maxBodyBytes),
            "webhook.publish_timeout_ms": String(configuration.publishTimeout.components.seconds * 1000
                + configuration.publishTimeout.components.attoseconds / 1_000_000_000_000_000),
            "webhook.trust_forwarded_for": String(configuration.trustForwardedFor),
            "kafka.brokers": messaging.client.bootstrapServers.joined(separator: ","),
        ])
        do {
            try await ServiceGroup(services: application.services, logger: logger).run()
        } catch {
            logger.critical("webhook-receiver stopped: \(error)")
            exit(1)
        }
    }
}
