import Timing
import Catalog
import CatalogService
import HTTPClient
import HTTPServer
import BillingModel
import ServiceRuntime
import Telemetry

/// `catalog`: serves the product list apps show, from memory, refreshed from
/// the payment providers in the background. Its settings are declared in
/// ``CatalogBinary/settings``: `catalog --help-settings` lists them.
@main
struct CatalogMain {
    static func main() async {
        await ServiceLauncher.run(
            "catalog", settings: CatalogBinary.settings,
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
