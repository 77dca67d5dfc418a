import CryptoPrimitives
import Foundation
import HTTPServer
import Synchronization
import Telemetry

/// A receiver of Storefront's webhooks out on 127.0.0.1, as an app's backend
/// would run one: it checks each request's Standard Webhooks signature with
/// the endpoint's secret, records what verified (and counts what did not),
/// and answers 204, or whatever status it is told to (an endpoint that is
/// down answers 503 until told otherwise).
public final class WebhookEndpointStub: Sendable {
    /// One verified request.
    public struct Received: Sendable, Hashable {
        public var webhookID: String
        public var timestamp: String
        public var body: [UInt8]
    }

    struct State: Sendable {
        var received: [Received] = []
        var rejected = 0
        var attempts: [String: Int] = [:]
        var status = 204
    }

    /// The path it listens on.
    public static let path = "/hooks/storefront"

    private let server: HTTPServer
    private let state: StubState
    public let port: UInt16

    private init(server: HTTPServer, state: StubState, port: UInt16) {
        self.server = server
        self.state = state
        self.port = port
    }

    /// The URL to register (`http://127.0.0.1:<port>/hooks/storefront`).
    public var url: String { "http://127.0.0.1:\(port)\(Self.path)" }

    /// Starts a receiver that verifies with `secret` (`whsec_…`).
    /// - Throws: for a secret that is not `whsec_…`, or when the server cannot bind.
    public static func start(secret: String) throws -> WebhookEndpointStub {
        let key = try StandardWebhookSignature.key(of: secret)
        let state = StubState()
        let router = Router()
        router.post(path) { request, _ in
            let id = request.headers["webhook-id"] ?? "", timestamp = request.headers["webhook-timestamp"] ?? ""
            let status = state.value.withLock { state -> Int in
                state.attempts[id, default: 0] += 1
                return state.status
            }
            let verified = StandardWebhookSignature.verify(
                header: request.headers["webhook-signature"] ?? "", id: id, timestamp: timestamp, body: request.body, key: key)
            guard verified else {
                state.value.withLock { $0.rejected += 1 }
                return HTTPResponse(status: HTTPStatus(code: 401), headers: [:], body: [])
            }
            // Only what it accepted counts as received: a receiver that answers 503 has not taken the event.
            if (200..<300).contains(status) {
                state.value.withLock { $0.received.append(Received(webhookID: id, timestamp: timestamp, body: request.body)) }
            }
            return HTTPResponse(status: HTTPStatus(code: status), headers: [:], body: [])
        }
        var configuration = HTTPServerConfiguration()
        configuration.bindAddress = "127.0.0.1"
        configuration.port = 0
        let server = HTTPServer(
            responder: router.buildResponder(), configuration: configuration,
            logger: Logger(service: "webhook-endpoint-stub", minimumLevel: .critical))
        let port = try server.start()
        return WebhookEndpointStub(server: server, state: state, port: port)
    }

    /// Answers every request with `status` from now on (503: down; 204: up again).
    public func answer(_ status: Int) { state.value.withLock { $0.status = status } }

    /// Requests accepted (signature verified, answered 2xx), in arrival order.
    public var received: [Received] { state.value.withLock { $0.received } }
    /// Requests whose signature did not verify.
    public var rejected: Int { state.value.withLock { $0.rejected } }
    /// Requests for the events `ids` (their `webhook-id`), whatever the answer:
    /// the topic is shared, so a test counts its own events only.
    public func attempts(for ids: Set<String>) -> Int {
        state.value.withLock { state in ids.reduce(0) { $0 + (state.attempts[$1] ?? 0) } }
    }

    public func stop() async { await server.shutdown() }
}

/// Lets the route closure and the stub share one mutex.
private final class StubState: Sendable {
    let value = Mutex(WebhookEndpointStub.State())
}
