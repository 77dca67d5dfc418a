import Catalog
import HTTPServer
import BillingModel
import ServiceRuntime
import Telemetry

/// Why the catalog application cannot be built.
public enum CatalogSetupError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No provider is configured, so there is nothing to sell.
    case noSources
    /// Two sources claim the same provider; their ids would collide.
    case duplicateProvider(Provider)

    public var description: String {
        switch self {
        case .noSources:
            "no catalog source is configured: enable at least one payment provider (\(Provider.displayNames))"
        case .duplicateProvider(let provider):
            "more than one catalog source for provider \(provider.rawValue)"
        }
    }
}

/// The catalog service, assembled: the shared catalog cache and its
/// refresher, the store that renders it, routes and server.
///
/// The executable and the tests build it the same way through
/// ``buildCatalogApplication(sources:configuration:http:logger:metrics:clock:)``;
/// tests may call ``ServiceApplication/respond(to:logger:)``, without a socket.
public struct CatalogApplication: ServiceApplication {
    /// The rendered catalog the routes serve.
    public let store: CatalogStore
    /// The background service that loads and refreshes ``catalog``.
    public let refresher: CatalogRefresher
    /// Products and operational routes; readiness `catalog` passes once a
    /// first load succeeded; `catalog_*` and the HTTP metrics.
    public let shell: ApplicationShell

    /// The services to run, in start order: the refresher, then HTTP. The
    /// server starts at once (answering 503 and not-ready until a first load),
    /// so orchestrators can see the process is alive while a provider is down.
    public var services: [any Service] {
        [refresher, shell.server]
    }

    /// Each provider's last good items (tests trigger refreshes on it directly).
    public var catalog: CatalogCache { store.cache }
}

/// Builds the catalog service.
///
/// - Parameters:
///   - sources: one per enabled provider, in the order products are listed.
///   - configuration: refresh interval and retry backoff.
///   - http: address, port and limits of the server.
///   - logger: the service's root logger.
///   - metrics: registry for `catalog_*`, HTTP and anything the caller adds.
///   - clock: time source for the catalog's age.
/// - Throws: ``CatalogSetupError`` when `sources` is empty or repeats a provider.
public func buildCatalogApplication(
    sources: [any CatalogSource],
    configuration: CatalogConfiguration = CatalogConfiguration(),
    http: HTTPServerConfiguration = HTTPServerConfiguration(),
    logger: Logger,
    metrics: MetricsRegistry = MetricsRegistry(),
    clock: CatalogClock = .continuous
) throws(CatalogSetupError) -> CatalogApplication {
    guard !sources.isEmpty else { throw .noSources }
    var providers = Set<Provider>()
    for source in sources where !providers.insert(source.provider).inserted {
        throw .duplicateProvider(source.provider)
    }
    let store = CatalogStore(sources: sources, clock: clock, logger: logger, metrics: metrics)
    let health = HealthChecks()
    health.register("catalog") {
        guard store.isLoaded else { throw CatalogNotLoaded() }
    }
    return CatalogApplication(
        store: store,
        refresher: CatalogRefresher(cache: store.cache, schedule: configuration.schedule, logger: logger),
        shell: ApplicationShell(http: http, health: health, metrics: metrics, logger: logger) { CatalogRoutes.mount(on: $0, store: store) })
}

/// The readiness failure before the first successful load.
struct CatalogNotLoaded: Error, CustomStringConvertible {
    var description: String { "catalog not loaded yet" }
}
