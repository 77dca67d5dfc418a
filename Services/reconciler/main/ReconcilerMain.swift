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
/// `storefront.snapshots.v1`. Its settings are declared in
/// ``ReconcilerBinary/settings``: `reconciler --help-settings` lists them.
@main
struct ReconcilerMain {
    static func main() async {
        await ServiceLauncher.run(
            "reconciler", settings: ReconcilerBinary.settings,
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
                    throw ConfigurationError(problems: [ReconcilerProviderSettings.incomplete])
                }
                let configuration = settings.configuration
                let application = try buildReconcilerApplication(
                    configuration: configuration, providers: providers, messaging: settings.messaging, http: settings.http,
                    logger: logger, metrics: metrics)
                let budgets = Provider.allCases.map { ("reconciler.budget.\($0.rawValue)_per_minute", String(providers.requestsPerMinute($0))) }
                logger.info(
                    "reconciler starting",
                    metadata: Dictionary(uniqueKeysWithValues: budgets).merging([
                        "http.port": String(settings.http.port), "kafka.group": configuration.groupID,
                        "reconciler.providers": providers.providers.enabledProviders.map(\.rawValue).joined(separator: ","),
                        "reconciler.sweep_interval_seconds": String(format: "%.0f", configuration.sweepInterval.inSeconds),
                        "reconciler.drift": configuration.databaseURL == nil ? "off (no DATABASE_URL)" : "on",
                        "reconciler.budget.ledger": configuration.databaseURL == nil ? "off (no DATABASE_URL): per-replica budgets" : "shared",
                        "postgres.limits": configuration.databaseURL == nil ? "-" : configuration.databaseLimits.description,
                    ]) { _, fixed in fixed })
                return ServiceLaunch(services: application.services, afterStop: { await application.close() })
            })
    }
}
