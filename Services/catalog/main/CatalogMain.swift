import Timing
import Catalog
import CatalogService
import HTTPClient
import HTTPServer
import BillingModel
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
        await ServiceLauncher.run(
            "catalog",
            read: { reader, _ in
                (
                    http: HTTPServerConfiguration.fromEnvironment(&reader, defaultPort: 8081),
                    configuration: CatalogConfiguration.fromEnvironment(&reader),
                    sources: makeCatalogSources(&reader, httpClient: HTTPClient())
                )
            },
            start: { settings, logger, metrics in
                let application = try buildCatalogApplication(
                    sources: settings.sources, configuration: settings.configuration, http: settings.http, logger: logger, metrics: metrics)
                logger.info(
                    "catalog starting",
                    metadata: [
                        "http.port": String(settings.http.port),
                        "catalog.providers": settings.sources.map(\.provider.rawValue).joined(separator: ","),
                        "catalog.refresh_interval_seconds": String(settings.configuration.refreshInterval.inSeconds),
                    ])
                return ServiceLaunch(services: application.services)
            })
    }
}
