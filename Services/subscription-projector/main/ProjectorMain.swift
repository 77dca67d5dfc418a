import Foundation
import HTTPServer
import MessagingSetup
import ProjectorService
import ServiceHTTP
import ServiceRuntime
import Telemetry

/// `subscription-projector`: the only writer of subscription state. Consumes
/// webhooks, checkouts and commands, and projects them into PostgreSQL.
/// Environment: `DATABASE_URL`, `KAFKA_BROKERS` (required), `KAFKA_GROUP_ID`,
/// `PROJECTOR_BATCH_SIZE`, `PROJECTOR_BATCH_WAIT`, `PROJECTOR_MIGRATE`,
/// `PROJECTOR_DB_CONNECTIONS`, `PORT` (default 8084; health and metrics only), `LOG_LEVEL`.
@main
struct ProjectorMain {
    static func main() async {
        var reader = ConfigReader(Environment())
        let logger = Logger.bootstrap(service: "subscription-projector", reader: &reader)
        let http = HTTPServerConfiguration.fromEnvironment(&reader, defaultPort: 8084)
        let configuration = ProjectorConfiguration.fromEnvironment(&reader)
        let messaging = MessagingSettings.fromEnvironment(&reader, service: "subscription-projector", logger: logger)
        do {
            try reader.finish()
        } catch {
            ServiceConfigurationFailure.exit(error, logger: logger)
        }

        let metrics = MetricsRegistry()
        ProcessMetrics.register(into: metrics)
        let application: ProjectorApplication
        do {
            application = try buildProjectorApplication(
                configuration: configuration, messaging: messaging, http: http, logger: logger, metrics: metrics)
        } catch {
            ServiceConfigurationFailure.exit(error, logger: logger)
        }
        logger.info("subscription-projector starting", metadata: [
            "http.port": String(http.port), "kafka.group": configuration.groupID,
            "batch.size": String(configuration.batchSize), "migrate": String(configuration.migrate),
        ])
        do {
            try await ServiceGroup(services: application.services, logger: logger).run()
        } catch {
            logger.critical("subscription-projector stopped: \(error)")
            await application.pool.close()
            exit(1)
        }
        await application.pool.close()
    }
}
