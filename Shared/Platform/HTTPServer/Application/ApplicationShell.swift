import ServiceRuntime
import Telemetry

/// The HTTP side every Storefront process has, built one way: a router with
/// the operational routes (``Router/addOperationalRoutes(health:metrics:)``)
/// and the process's own routes, frozen, behind an ``HTTPServer``.
///
/// Drain order is the group's: put ``server`` where its stop must come first
/// (services stop in reverse start order), so in-flight requests finish
/// before anything they use (a producer, a pool) closes.
public struct ApplicationShell: Sendable {
    /// Readiness checks served on `/readyz`.
    public let health: HealthChecks
    /// Where the HTTP metrics and the process's own are registered; served on `/metrics`.
    public let metrics: MetricsRegistry
    /// The frozen router: operational routes plus the process's own.
    public let responder: RouterResponder
    /// The server (not started; it is a ``Service``).
    public let server: HTTPServer

    /// - Parameters:
    ///   - http: address, port and limits of the server.
    ///   - health: the checks registered so far; more may be registered later.
    ///   - metrics: the process's registry.
    ///   - logger: the server's base logger.
    ///   - routes: mounts the process's own routes.
    public init(
        http: HTTPServerConfiguration, health: HealthChecks = HealthChecks(), metrics: MetricsRegistry,
        logger: Logger, routes: (Router) -> Void = { _ in }
    ) {
        let router = Router()
        router.addOperationalRoutes(health: health, metrics: metrics)
        routes(router)
        let responder = router.buildResponder()
        self.health = health
        self.metrics = metrics
        self.responder = responder
        self.server = HTTPServer(responder: responder, configuration: http, logger: logger, metrics: metrics)
    }

    /// Answers `request` as the server would, without a socket (router tests).
    public func respond(to request: HTTPRequest, logger: Logger) async -> HTTPResponse {
        await responder.respond(to: request, logger: logger).response
    }
}

/// An assembled Storefront process: its ``ApplicationShell`` and the services
/// a ``ServiceGroup`` runs, in start order.
public protocol ServiceApplication: Sendable {
    var shell: ApplicationShell { get }
    var services: [any Service] { get }
}

extension ServiceApplication {
    public var health: HealthChecks { shell.health }
    public var metrics: MetricsRegistry { shell.metrics }
    public var server: HTTPServer { shell.server }

    /// Answers `request` as the server would, without a socket.
    public func respond(to request: HTTPRequest, logger: Logger) async -> HTTPResponse {
        await shell.respond(to: request, logger: logger)
    }
}
