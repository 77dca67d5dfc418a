import Timing
import ServiceSettings
import Foundation
import HTTPServer
import Kafka
import BillingModel
import Postgres
import ProviderConfiguration
import ReconcilerService
import ServiceRuntime
import Telemetry

/// `reconciler`: fetches the provider's own view of every subscription,
/// order and transaction a webhook or command touches, sweeps the
/// providers' lists on a schedule, and publishes each as a snapshot to
/// `storefront.snapshots.v1`. Environment: `KAFKA_BROKERS` (required), the
/// providers' settings (as every service), `KAFKA_GROUP_ID` (`reconciler`),
/// `RECONCILER_*` and `PROVIDER_BUDGET_*` (see the README), `DATABASE_URL`
/// (optional: drift figures, and the provider ledger shared with the checkout), `PORT` (default 8085; health and metrics only), `LOG_LEVEL`.
@main
struct ReconcilerMain {
    static func main() async {
        await ServiceLauncher.run(
            "reconciler",
            read: { reader, logger in
                (
                    http: HTTPServerConfiguration.fromEnvironment(&reader, defaultPort: 8085),
                    configuration: ReconcilerConfiguration.fromEnvironment(&reader),
                    messaging: MessagingSettings.fromEnvironment(&reader, service: "reconciler", logger: logger),
                    providers: ReconcilerProviderSettings.fromEnvironment(&reader)
                )
            },
            start: { settings, logger, metrics in
                // Nil only when the reader reported why (and the launcher exited).
                guard let providers = settings.providers else {
                    throw ConfigurationError(problems: [
                        ConfigurationProblem(variable: "LEMONSQUEEZY_API_KEY", message: "provider configuration incomplete")
                    ])
                }
                let configuration = settings.configuration
                let application = try buildReconcilerApplication(
                    configuration: configuration, providers: providers, messaging: settings.messaging, http: settings.http,
                    logger: logger, metrics: metrics)
                logger.info(
                    "reconciler starting",
                    metadata: [
                        "http.port": String(settings.http.port), "kafka.group": configuration.groupID,
                        "reconciler.providers": providers.providers.enabledProviders.map(\.rawValue).joined(separator: ","),
                        "reconciler.sweep_interval_seconds": String(format: "%.0f", configuration.sweepInterval.inSeconds),
                        "reconciler.budget.lemonsqueezy_per_minute": String(providers.lemonSqueezyRequestsPerMinute),
                        "reconciler.budget.paystack_per_minute": String(providers.paystackRequestsPerMinute),
                        "reconciler.drift": configuration.databaseURL == nil ? "off (no DATABASE_URL)" : "on",
                        "reconciler.budget.ledger": configuration.databaseURL == nil ? "off (no DATABASE_URL): per-replica budgets" : "shared",
                        "postgres.limits": configuration.databaseURL == nil ? "-" : configuration.databaseLimits.description,
                    ])
                return ServiceLaunch(services: application.services, afterStop: { await application.close() })
            })
    }
}
