@testable import HTTPServer
import Telemetry

/// A live server on 127.0.0.1, port 0, with captured logs and its own metrics registry.
struct Harness {
    let server: HTTPServer
    let port: UInt16
    let sink: CapturingLogSink
    let metrics: MetricsRegistry
}

/// Starts a server with the given routes, runs `body`, then shuts the server down.
func withServer(
    configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    routes: (Router) -> Void,
    _ body: (Harness) async throws -> Void
) async throws {
    var configuration = HTTPServerConfiguration()
    configuration.bindAddress = "127.0.0.1"
    configuration.port = 0
    configure(&configuration)
    let router = Router()
    routes(router)
    let sink = CapturingLogSink()
    let metrics = MetricsRegistry()
    let server = HTTPServer(
        responder: router.buildResponder(), configuration: configuration,
        logger: Logger(service: "http-test", sink: sink), metrics: metrics)
    let port = try server.start()
    do {
        try await body(Harness(server: server, port: port, sink: sink, metrics: metrics))
    } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}

struct Product: Codable, Sendable, Equatable {
    var id: String
    var name: String
}
