import HTTPClient
import HTTPServer
import SandboxKit
import ServiceHTTP
import ServiceRuntime
import Telemetry

/// The provider sandbox served over HTTP: both providers' APIs, hosted
/// checkout pages, the `/_sandbox` controls and the delivery log on one port,
/// plus `/healthz` and `/metrics`. Tests start it on port 0.
public final class ProviderSandboxServer: Sendable {
    public let app: SandboxApp
    public let server: HTTPServer

    /// Builds the sandbox; call ``start()`` (or run ``server`` as a service) to serve.
    /// - Throws: `SandboxCatalog.LoadError` when `catalogFile` cannot be loaded.
    public init(settings: ProviderSandboxSettings, logger: Logger, metrics: MetricsRegistry = MetricsRegistry()) throws {
        let catalog = try settings.catalogFile.map { try SandboxCatalog.load(path: $0) } ?? .standard
        app = SandboxApp(configuration: settings.sandbox, catalog: catalog, signer: .openSSL,
                         transport: CurlWebhookTransport(client: HTTPClient()))
        let router = Router()
        router.addOperationalRoutes(health: HealthChecks(), metrics: metrics)
        SandboxRouting.mount(app, on: router)
        var configuration = HTTPServerConfiguration()
        configuration.bindAddress = settings.bindAddress
        configuration.port = UInt16(clamping: settings.port)
        configuration.threadPoolSize = 2
        server = HTTPServer(responder: router.buildResponder(), configuration: configuration, logger: logger, metrics: metrics)
    }

    /// Binds and serves; returns the real port.
    @discardableResult
    public func start() throws -> UInt16 { try server.start() }

    /// Waits for queued webhook deliveries, then stops serving.
    public func shutdown() async {
        await server.shutdown()
    }
}
