import CryptoPrimitives
import Foundation
import HTTPServer
import Synchronization
import Telemetry

/// A stand-in for an identity provider's JWKS endpoint on 127.0.0.1: serves
/// the public JWKs of the signers it is given (or any body, or an error
/// status), and counts every request, so tests can see rotations, outages
/// and how often a key set was fetched.
public final class LocalJWKSServer: Sendable {
    /// The path the keys are served at.
    public static let path = "/.well-known/jwks.json"

    struct State: Sendable {
        var body: [UInt8]
        var status: Int = 200
        var cacheControl: String?
        var requests = 0
    }

    private let server: HTTPServer
    private let shared: SharedState
    /// The bound port.
    public let port: UInt16

    private init(server: HTTPServer, shared: SharedState, port: UInt16) {
        self.server = server
        self.shared = shared
        self.port = port
    }

    /// The JWKS URL (`http://127.0.0.1:<port>/.well-known/jwks.json`).
    public var url: URL { URL(string: "http://127.0.0.1:\(port)\(Self.path)")! }

    /// Starts serving the public keys of `signers`.
    /// - Parameter cacheControl: the `Cache-Control` header sent, if any.
    /// - Throws: when the server cannot bind.
    public static func start(publishing signers: [JWTSigner], cacheControl: String? = "public, max-age=300") throws -> LocalJWKSServer {
        let shared = SharedState(State(body: document(signers), cacheControl: cacheControl))
        let router = Router()
        router.get(path) { _, _ in
            let answer = shared.state.withLock { state -> State in
                state.requests += 1
                return state
            }
            var headers: HTTPHeaders = ["Content-Type": "application/json"]
            if let cacheControl = answer.cacheControl { headers.add(name: "Cache-Control", value: cacheControl) }
            return HTTPResponse(
                status: HTTPStatus(code: answer.status), headers: headers, body: answer.status == 200 ? answer.body : Array("{}".utf8))
        }
        var configuration = HTTPServerConfiguration()
        configuration.bindAddress = "127.0.0.1"
        configuration.port = 0
        let server = HTTPServer(
            responder: router.buildResponder(), configuration: configuration, logger: Logger(service: "jwks-test-server", minimumLevel: .critical))
        let port = try server.start()
        return LocalJWKSServer(server: server, shared: shared, port: port)
    }

    /// The JWKS document of `signers`' public keys.
    public static func document(_ signers: [JWTSigner]) -> [UInt8] {
        let keys = signers.compactMap { $0.publicJWK.map(JOSEValue.object) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Array((try? encoder.encode(JOSEValue.object(["keys": .array(keys)]))) ?? Data())
    }

    /// Serves the public keys of `signers` from now on (a rotation), with status 200.
    public func publish(_ signers: [JWTSigner]) { serve(Self.document(signers)) }

    /// Serves `body` as is from now on, with status 200.
    public func serve(_ body: [UInt8]) {
        shared.state.withLock {
            $0.body = body
            $0.status = 200
        }
    }

    /// Answers every request with `status` from now on (until the next publish).
    public func fail(status: Int) { shared.state.withLock { $0.status = status } }

    /// Requests served so far.
    public var requests: Int { shared.state.withLock { $0.requests } }

    /// Stops the server.
    public func stop() async { await server.shutdown() }
}

/// Lets the route closure and the server object share one mutex.
private final class SharedState: Sendable {
    let state: Mutex<LocalJWKSServer.State>
    init(_ initial: LocalJWKSServer.State) { state = Mutex(initial) }
}
