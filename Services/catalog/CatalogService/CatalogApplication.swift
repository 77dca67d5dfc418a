import HTTPServer
import Models
import ServiceHTTP
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
            "no catalog source is configured: enable at least one payment provider (Lemon Squeezy or Paystack)"
        case .duplicateProvider(let provider):
            "more than one catalog source for provider \(provider.rawValue)"
        }
    }
}

/// The catalog service, assembled: store, refresher, routes and server.
///
/// The executable and the tests build it the same way through
/// ``buildCatalogApplication(sources:configuration:http:logger:metrics:clock:)``;
/// tests may call ``responder`` directly, without a socket.
public struct CatalogApplication: Sendable {
    /// The in-memory catalog (tests trigger refreshes on it directly).
    public let store: CatalogStore
    /// The background service that loads and refreshes ``store``.
    public let refresher: CatalogRefresher
    /// Readiness checks: `catalog` passes once a first load succeeded.
    public let health: HealthChecks
    /// Where `catalog_*` and the HTTP metrics are registered.
    public let metrics: MetricsRegistry
    /// The frozen router (products and operational routes).
    public let responder: RouterResponder
    /// The HTTP server (not started).
    public let server: HTTPServer

    /// The services to run, in start order: the refresher, then HTTP. The
    /// server starts at once (answering 503 and not-ready until a first load),
    /// so orchestrators can see the process is alive while a provider is down.
    public var services: [any Service] {
        [refresher, HTTPServerService(name: "http", server: server)]
    }

    /// Answers `request` as the server would (no socket).
    public func respond(to request: HTTPRequest, logger: Logger) async -> HTTPResponse {
        await responder.respond(to: request, logger: logger).response
    }
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
    let router = Router()
    router.addOperationalRoutes(health: health, metrics: metrics)
    CatalogRoutes.mount(on: router, store: store)
    let responder = router.buildResponder()
    return CatalogApplication(
        store: store,
        refresher: CatalogRefresher(store: store, configuration: configuration, logger: logger),
        health: health, metrics: metrics, responder: responder,
        server: HTTPServer(responder: responder, configuration: http, logger: logger, metrics: metrics))
}

/// The readiness failure before the first successful load.
struct CatalogNotLoaded: Error, CustomStringConvertible {
    var description: String { "catalog not loaded yet" }
}
