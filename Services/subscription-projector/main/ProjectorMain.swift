import HTTPServer
import Kafka
import Postgres
import ProjectorService
import ServiceRuntime
import Telemetry
import EntitlementSigning
import ServiceSettings

/// `subscription-projector`: the only writer of subscription state. Consumes
/// webhooks, checkouts, commands and the reconciler's snapshots, and projects
/// them into PostgreSQL. Its settings are declared in
/// ``ProjectorBinary/settings``: `subscription-projector --help-settings` lists them.
@main
struct ProjectorMain {
    static func main() async {
        await ServiceLauncher.run(
            "subscription-projector", settings: ProjectorBinary.settings,
            read: { reader, logger in
                (
                    http: HTTPServerConfiguration.fromEnvironment(&reader, defaultPort: 8084),
                    configuration: ProjectorConfiguration.fromEnvironment(&reader),
                    signer: EntitlementChangeSigner.fromEnvironment(&reader),
                    messaging: MessagingSettings.fromEnvironment(&reader, service: "subscription-projector", logger: logger)
                )
            },
            start: { settings, logger, metrics in
                // Nil only when the reader reported why (and the launcher exited).
                guard let signer = settings.signer else {
                    throw ConfigurationError(problems: [
                        ConfigurationProblem(variable: "ENTITLEMENT_SIGNING_KEY", message: "configuration incomplete")
                    ])
                }
                let application = try buildProjectorApplication(
                    configuration: settings.configuration, signer: signer, messaging: settings.messaging, http: settings.http, logger: logger,
                    metrics: metrics)
                logger.info(
                    "subscription-projector starting",
                    metadata: [
                        "http.port": String(settings.http.port), "kafka.group": settings.configuration.groupID,
                        "batch.size": String(settings.configuration.batchSize), "migrate": String(settings.configuration.migrate),
                        "postgres.limits": settings.configuration.databaseLimits.description,
                        "entitlements.signing_key_id": signer.keyID,
                    ])
                let pool = application.pool
                return ServiceLaunch(services: application.services, afterStop: { await pool.close() })
            })
    }
}
