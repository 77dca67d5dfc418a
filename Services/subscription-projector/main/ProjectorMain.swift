import HTTPServer
import Kafka
import Postgres
import ProjectorService
import ServiceRuntime
import Telemetry

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
                    messaging: MessagingSettings.fromEnvironment(&reader, service: "subscription-projector", logger: logger)
                )
            },
            start: { settings, logger, metrics in
                let application = try buildProjectorApplication(
                    configuration: settings.configuration, messaging: settings.messaging, http: settings.http, logger: logger, metrics: metrics)
                logger.info(
                    "subscription-projector starting",
                    metadata: [
                        "http.port": String(settings.http.port), "kafka.group": settings.configuration.groupID,
                        "batch.size": String(settings.configuration.batchSize), "migrate": String(settings.configuration.migrate),
                        "postgres.limits": settings.configuration.databaseLimits.description,
                    ])
                let pool = application.pool
                return ServiceLaunch(services: application.services, afterStop: { await pool.close() })
            })
    }
}
