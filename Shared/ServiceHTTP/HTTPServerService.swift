import HTTPServer
import ServiceRuntime

/// Runs an ``HTTPServer`` as one service of a ``ServiceGroup``: it binds when
/// started (so a port conflict fails the whole process at start-up), reports
/// ready, and drains gracefully when the group stops it.
public struct HTTPServerService: Service {
    public let name: String
    public let server: HTTPServer
    public var signalsReadiness: Bool { true }

    public init(name: String = "http", server: HTTPServer) {
        self.name = name
        self.server = server
    }

    public func run() async throws {
        try server.start()
        ServiceStartup.markReady()
        try await server.run()
    }
}
