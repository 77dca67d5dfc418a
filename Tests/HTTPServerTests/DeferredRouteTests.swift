import Foundation
@testable import HTTPServer
import Synchronization
import Telemetry
import Testing
import TestSupport

/// Completions a test keeps (a handler that answers later, or never).
final class CompletionStash: Sendable {
    private let held = Mutex<[ResponseCompletion]>([])
    func keep(_ completion: ResponseCompletion) { held.withLock { $0.append(completion) } }
    var count: Int { held.withLock { $0.count } }
    /// Hands back what was kept and forgets it.
    func takeAll() -> [ResponseCompletion] {
        held.withLock { held in
            defer { held = [] }; return held
        }
    }
}

/// A registrar that only wraps another (as checkout's `DatabaseUnavailable`
/// does): `immediate` and `deferred` come from the protocol's defaults.
struct PassThroughRegistrar: RouteRegistrar {
    let base: Router
    @discardableResult
    func on(_ path: String, method: HTTPMethod, use handler: @escaping RouteHandler) -> PassThroughRegistrar {
        base.on(path, method: method, use: handler)
        return self
    }
}

/// Deferred routes (``DeferredRouteHandler``) through a real socket: started
/// on the server's own thread, answered by their completion from anywhere.
@Suite struct DeferredRouteTests {
    /// Answers on a new thread after `delay`, as a delivery report's callback would.
    static func completeLater(_ completion: ResponseCompletion, after delay: Duration = .milliseconds(20), _ response: HTTPResponse) {
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: Double(delay.components.attoseconds) / 1e18 + Double(delay.components.seconds))
            completion.complete(response)
        }
    }

    @Test func answeredFromAnotherThreadWithParametersErrorsMetricsAndTheAccessLine() async throws {
        try await withServer(routes: { router in
            router.group("/api").deferred(.post, "/items/{id}") { (request, context, completion) throws(HTTPError) in
                let id = try context.parameters.require("id")
                guard id != "missing" else { throw HTTPError(.notFound, "No such item", code: "item_not_found") }
                var response = HTTPResponse(
                    status: .created, headers: ["X-In-Task": ImmediateRouteTests.taskHeader()], body: Array((id + ":").utf8) + request.body)
                response.accessLogMetadata = ["item.id": id]
                Self.completeLater(completion, response)
            }
        }) { harness in
            let created = try await request(harness.port, "POST", "/api/items/42", body: "payload")
            #expect(created.status == 201 && created.text == "42:payload")
            #expect(created.header("x-in-task") == "no", "a deferred handler ran in a task")
            #expect(created.header("x-request-id") != nil)

            let missing = try await request(harness.port, "POST", "/api/items/missing")
            #expect(missing.status == 404)
            #expect(missing.text.contains("item_not_found"), "\(missing.text)")
            #expect(try await request(harness.port, "GET", "/api/items/7").status == 405)

            let text = harness.metrics.renderPrometheus()
            #expect(text.contains(#"http_requests_total{method="POST",route="/api/items/{id}",status="201"} 1"#), "\(text)")
            #expect(text.contains(#"http_requests_total{method="POST",route="/api/items/{id}",status="404"} 1"#), "\(text)")
            #expect(text.contains("http_requests_in_flight 0"), "\(text)")
            // One access line, carrying what the completion's response added.
            let lines = harness.sink.lines.filter { $0.contains(#""http.route":"/api/items/{id}""#) && $0.contains(#""http.status":"201""#) }
            #expect(lines.count == 1 && lines[0].contains(#""item.id":"42""#), "\(lines)")
            try await waitUntil { harness.server.liveRequestStates == 0 }
        }
    }

    /// The completion may fire inside the handler, before the server's call
    /// returns; on a kept-alive connection, request after request.
    @Test func completedBeforeTheHandlerReturnsOnAKeptAliveConnection() async throws {
        let recorder = Recorder()
        try await withServer(routes: { router in
            router.deferred(.get, "/now") { (_, context, completion) throws(HTTPError) in
                completion.complete(HTTPResponse(status: .ok, body: Array(context.requestID.utf8)))
                completion.complete(HTTPResponse(status: .internalServerError)) // ignored: the first call counts
                recorder.add("returned")
            }
        }) { harness in
            let statuses = try await offPool { () -> [Int] in
                let connection = try RawConnection(port: harness.port, timeout: .seconds(10))
                var statuses: [Int] = []
                for index in 0..<5 {
                    try connection.send("GET /now HTTP/1.1\r\nHost: t\r\nX-Request-Id: r\(index)\r\n\r\n")
                    let response = try connection.readResponse()
                    #expect(response.text == "r\(index)")
                    statuses.append(response.status)
                }
                return statuses
            }
            #expect(statuses == Array(repeating: 200, count: 5))
            #expect(recorder.all.count == 5)
            try await waitUntil { harness.server.liveRequestStates == 0 }
        }
    }

    @Test func aCompletionPastTheDeadlineGets504AndIsHarmlessLater() async throws {
        let stash = CompletionStash()
        try await withServer(
            configure: { $0.handlerTimeout = .milliseconds(200) },
            routes: { router in
                router.deferred(.get, "/stuck") { (_, _, completion) throws(HTTPError) in stash.keep(completion) }
            }
        ) { harness in
            let response = try await request(harness.port, "GET", "/stuck")
            #expect(response.status == 504)
            #expect(response.text == #"{"success":false,"error":"Request timed out","code":"timeout"}"#)
            // The late answer loses: nothing is resumed, the state is freed once the completion is.
            for completion in stash.takeAll() { completion.complete(HTTPResponse(status: .ok)) }
            #expect(try await request(harness.port, "GET", "/stuck").status == 504)
            _ = stash.takeAll() // dropped uncalled after the 504: its deinit's 500 loses too
            try await waitUntil { harness.server.liveRequestStates == 0 }
        }
    }

    @Test func aDroppedCompletionAnswers500AtOnceNotAtTheDeadline() async throws {
        try await withServer(
            configure: { $0.handlerTimeout = .seconds(20) },
            routes: { router in
                router.deferred(.get, "/forgetful") { (_, _, completion) throws(HTTPError) in
                    Thread.detachNewThread { _ = completion } // released on another thread, never called
                }
            }
        ) { harness in
            let before = ContinuousClock.now
            let response = try await request(harness.port, "GET", "/forgetful")
            #expect(response.status == 500)
            #expect(ContinuousClock.now - before < .seconds(10), "answered by the completion's deinit, not the 20 s deadline")
            #expect(harness.sink.lines.contains { $0.contains("dropped its completion") })
            try await waitUntil { harness.server.liveRequestStates == 0 }
        }
    }

    @Test func shutdownAnswersAnUncompletedRequest503() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.bindAddress = "127.0.0.1"
        configuration.port = 0
        configuration.shutdownGracePeriod = .milliseconds(300)
        let stash = CompletionStash()
        let router = Router()
        router.deferred(.get, "/forever") { (_, _, completion) throws(HTTPError) in stash.keep(completion) }
        let server = HTTPServer(
            responder: router.buildResponder(), configuration: configuration,
            logger: .init(service: "deferred-test", sink: CapturingLogSink()))
        let port = try server.start()
        async let responses = concurrentGets(port, target: "/forever", count: 3)
        try await waitUntil { stash.count == 3 }
        await server.shutdown()
        #expect(try await responses == [503, 503, 503])
        // After the daemon stopped, a late completion must touch nothing.
        for completion in stash.takeAll() { completion.complete(HTTPResponse(status: .ok)) }
        #expect(server.liveRequestStates == 0)
    }

    @Test func middlewareStillRunsAroundADeferredRouteAndSeesItsErrors() async throws {
        let recorder = Recorder()
        try await withServer(routes: { router in
            router.add(middleware: Tracing(name: "outer", recorder: recorder))
            router.deferred(.get, "/later") { (_, _, completion) throws(HTTPError) in
                recorder.add("later")
                Self.completeLater(completion, HTTPResponse(status: .ok, headers: ["X-In-Task": ImmediateRouteTests.taskHeader()]))
            }
            router.group("/g").add(middleware: Tracing(name: "group", recorder: recorder))
                .deferred(.get, "/fails") { (_, _, completion) throws(HTTPError) in
                    recorder.add("fails")
                    completion.fail(HTTPError(.conflict, "Taken"))
                }
            router.deferred(.get, "/dropped") { (_, _, _) throws(HTTPError) in }
        }) { harness in
            let later = try await request(harness.port, "GET", "/later")
            #expect(later.status == 200 && later.header("x-trace") == "outer")
            #expect(later.header("x-in-task") == "yes", "router middleware must wrap the deferred handler")
            let fails = try await request(harness.port, "GET", "/g/fails")
            #expect(fails.status == 409 && fails.text.contains("Taken"))
            // Tracing adds its header only on success: the error passed through both middlewares.
            #expect(fails.header("x-trace") == nil)
            #expect(recorder.all == ["outer>", "later", "<outer", "outer>", "group>", "fails"])
            // Behind middleware a dropped completion still answers (a task awaits it).
            #expect(try await request(harness.port, "GET", "/dropped").status == 500)
            try await waitUntil { harness.server.liveRequestStates == 0 }
        }
    }

    @Test func aWrappingRegistrarsDefaultRunsItAsAnAsyncHandler() async throws {
        try await withServer(routes: { router in
            PassThroughRegistrar(base: router).deferred(.get, "/wrapped") { (_, _, completion) throws(HTTPError) in
                Self.completeLater(completion, HTTPResponse(status: .accepted, headers: ["X-In-Task": ImmediateRouteTests.taskHeader()]))
            }
        }) { harness in
            let response = try await request(harness.port, "GET", "/wrapped")
            #expect(response.status == 202)
            #expect(response.header("x-in-task") == "yes")
        }
    }

    /// Without a socket (`RouterResponder.respond`), as the services' router tests call it.
    @Test func theRoutersOwnRespondAwaitsTheCompletion() async throws {
        let router = Router()
        router.deferred(.get, "/x/{id}") { (_, context, completion) throws(HTTPError) in
            let id = try context.parameters.require("id")
            Self.completeLater(completion, HTTPResponse(status: .ok, body: Array(id.utf8)))
        }
        let (response, route) = await router.buildResponder().respond(
            to: try HTTPRequest(method: .get, target: "/x/abc"), logger: Logger(service: "t", sink: CapturingLogSink()))
        #expect(response.status == .ok && response.body == Array("abc".utf8) && route == "/x/{id}")
    }
}
