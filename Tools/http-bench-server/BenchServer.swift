import Foundation
import HTTPServer
import Telemetry

/// A minimal server for `make bench-http`: serves one fixed JSON document as a raw
/// response at `/bench.json` and prints `PORT <n>` once it listens.
///
/// Usage: `http-bench-server <json-file> [port] [threads]`. Stops on SIGINT/SIGTERM.
@main
struct BenchServer {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2, let document = FileManager.default.contents(atPath: arguments[1]) else {
            FileHandle.standardError.write(Data("usage: http-bench-server <json-file> [port] [threads]\n".utf8))
            exit(2)
        }
        var configuration = HTTPServerConfiguration()
        configuration.port = arguments.count >= 3 ? UInt16(arguments[2]) ?? 0 : 0
        configuration.threadPoolSize = arguments.count >= 4 ? Int(arguments[3]) ?? 2 : 2
        configuration.maxConnectionsPerIP = 0 // the load generator is one client on loopback

        let body = Array(document)
        let router = Router()
        router.get("/bench.json") { _, _ in
            HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"], body: body)
        }
        // Warnings only: one access-log line per request would measure stderr, not the server.
        let logger = Logger(service: "http-bench-server", minimumLevel: .warning)
        let server = HTTPServer(
            responder: router.buildResponder(), configuration: configuration, logger: logger,
            metrics: MetricsRegistry())
        let port = try server.start()
        FileHandle.standardOutput.write(Data("PORT \(port)\n".utf8))

        let (signals, continuation) = AsyncStream<Int32>.makeStream()
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN) // let the dispatch source, not the default action, see it
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
        for await _ in signals { break }
        withExtendedLifetime(sources) {}
        await server.shutdown()
    }
}
