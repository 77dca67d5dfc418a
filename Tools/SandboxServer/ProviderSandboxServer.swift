import HTTPClient
import HTTPServer
import SandboxKit
import ServiceRuntime
import Telemetry

/// The provider sandbox served over HTTP: both providers' APIs, hosted
/// checkout pages, the `/_sandbox` controls and the delivery log on one port,
/// plus `/healthz` and `/metrics`. Tests start it on port 0.
public final class ProviderSandboxServer: ServiceApplication {
    public let app: SandboxApp
    /// The sandbox's routes plus the operational ones (no readiness checks).
    public let shell: ApplicationShell
    public var services: [any Service] { [shell.server] }

    /// Builds the sandbox; call ``start()`` (or run ``services``) to serve.
    /// - Throws: `SandboxCatalog.LoadError` when `catalogFile` cannot be loaded.
    public init(settings: ProviderSandboxSettings, logger: Logger, metrics: MetricsRegistry = MetricsRegistry()) throws {
        let catalog = try settings.catalogFile.map { try SandboxCatalog.load(path: $0) } ?? .standard
        app = SandboxApp(
            configuration: settings.sandbox, catalog: catalog, signer: .openSSL,
            transport: CurlWebhookTransport(client: HTTPClient()))
        var configuration = HTTPServerConfiguration()
        configuration.bindAddress = settings.bindAddress
        configuration.port = UInt16(clamping: settings.port)
        configuration.threadPoolSize = 2
        let app = app
        shell = ApplicationShell(http: configuration, metrics: metrics, logger: logger) { SandboxRouting.mount(app, on: $0) }
    }

    /// Binds and serves; returns the real port.
    @discardableResult
    public func start() throws -> UInt16 { try server.start() }

    /// Waits for queued webhook deliveries, then stops serving.
    public func shutdown() async {
        await server.shutdown()
    }
}
