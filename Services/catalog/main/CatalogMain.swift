import CatalogService
import Foundation
import HTTPClient
import HTTPServer
import ServiceHTTP
import ServiceRuntime
import Telemetry

/// `catalog`: serves the product list apps show, from memory, refreshed from
/// the payment providers in the background. Configuration comes from the
/// environment: `PORT` (default 8081) and the other HTTP settings,
/// `CATALOG_REFRESH_INTERVAL` (default 300 s), `CATALOG_RETRY_INITIAL_DELAY`,
/// `CATALOG_RETRY_MAX_DELAY`, `LOG_LEVEL`, and the providers' settings.
@main
struct CatalogMain {
    static func main() async {
        var reader = ConfigReader(Environment())
        let logger = Logger.bootstrap(service: "catalog", reader: &reader)
        let http = HTTPServerConfiguration.fromEnvironment(&reader, defaultPort: 8081)
        let configuration = CatalogConfiguration.fromEnvironment(&reader)
        let sources = makeCatalogSources(&reader, httpClient: HTTPClient())
        do {
            try reader.finish()
        } catch {
            ServiceConfigurationFailure.exit(error, logger: logger)
        }

        let metrics = MetricsRegistry()
        ProcessMetrics.register(into: metrics)
        let application: CatalogApplication
        do {
            application = try buildCatalogApplication(
                sources: sources, configuration: configuration, http: http, logger: logger, metrics: metrics)
        } catch {
            // A setup fault, not a crash: exit like any other configuration problem.
            ServiceConfigurationFailure.exit(error, logger: logger)
        }

        logger.info("catalog starting", metadata: [
            "http.port": String(http.port),
            "catalog.providers": sources.map(\.provider.rawValue).joined(separator: ","),
            "catalog.refresh_interval_seconds": String(Double(configuration.refreshInterval.components.seconds)),
        ])
        do {
            try await ServiceGroup(services: application.services, logger: logger).run()
        } catch {
            logger.critical("catalog stopped: \(error)")
            exit(1)
        }
    }
}
