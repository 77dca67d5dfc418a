import Foundation
import TestSupport
import Testing

/// The TLS front of one stack, stopped with it (its pid file is in the stack's pids/).
struct TLSFront {
    let url: String
    let certificate: String

    static func start(_ stack: LiveStack) async throws -> TLSFront {
        let folder = stack.state + "/tls-front-\(UUID().uuidString.prefix(6))"
        let gateway = try #require(URL(string: stack.gateway))
        let upstream = "\(try #require(gateway.host)):\(try #require(gateway.port))"
        try await ScriptRunner.runScript(
            "tls-front.sh", ["start", folder, upstream],
            environment: ["TLS_FRONT_PID_FILE": stack.state + "/pids/\(URL(fileURLWithPath: folder).lastPathComponent).pid"])
        let settings = try TestEnvironment.readEnvFile(folder + "/tls-front.env")
        return TLSFront(url: try #require(settings["TLS_FRONT_URL"]), certificate: try #require(settings["TLS_FRONT_CA"]))
    }
}
