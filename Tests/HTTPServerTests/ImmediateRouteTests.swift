@testable import HTTPServer
import Telemetry
import Testing

/// Immediate routes (``ImmediateRouteHandler``) through a real socket: run on
/// the server's own thread, where no Swift task exists, unless middleware
/// must run around them.
@Suite struct ImmediateRouteTests {
    /// "yes" when the handler runs inside a Swift task (an async handler's), "no" on the server's thread.
    static func taskHeader() -> String {
        withUnsafeCurrentTask { $0 == nil ? "no" : "yes" }
    }

    @Test func answeredOnTheServersThreadWithParametersAndErrors() async throws {
        try await withServer(routes: { router in
            router.group("/api").immediate(.get, "/items/{id}") { (_, context) throws(HTTPError) in
                let id = try context.parameters.require("id")
                guard id != "missing" else { throw HTTPError(.notFound, "No such item", code: "item_not_found") }
                return HTTPResponse(status: .ok, headers: ["X-In-Task": Self.taskHeader()], body: Array(id.utf8))
            }
            router.get("/async") { _, _ in HTTPResponse(status: .ok, headers: ["X-In-Task": Self.taskHeader()]) }
        }) { harness in
            let found = try await request(harness.port, "GET", "/api/items/42")
            #expect(found.status == 200 && found.text == "42")
            #expect(found.header("x-in-task") == "no", "an immediate handler ran in a task")
            #expect(found.header("x-request-id") != nil)

            let missing = try await request(harness.port, "GET", "/api/items/missing")
            #expect(missing.status == 404)
            #expect(missing.text.contains("item_not_found"), "\(missing.text)")

            let wrongMethod = try await request(harness.port, "POST", "/api/items/7")
            #expect(wrongMethod.status == 405)

            // The comparison that gives the header meaning: an async handler does run in a task.
            #expect(try await request(harness.port, "GET", "/async").header("x-in-task") == "yes")

            // Counted and labelled by template like every other route.
            let text = harness.metrics.renderPrometheus()
            #expect(text.contains(#"http_requests_total{method="GET",route="/api/items/{id}",status="200"} 1"#), "\(text)")
            #expect(text.contains(#"http_requests_total{method="GET",route="/api/items/{id}",status="404"} 1"#), "\(text)")
        }
    }

    @Test func middlewareStillRunsAroundAnImmediateRoute() async throws {
        let recorder = Recorder()
        try await withServer(routes: { router in
            router.add(middleware: Tracing(name: "outer", recorder: recorder))
            router.immediate(.get, "/plain") { (_, _) throws(HTTPError) in
                recorder.add("plain")
                return HTTPResponse(status: .ok, headers: ["X-In-Task": Self.taskHeader()])
            }
            router.group("/g").add(middleware: Tracing(name: "group", recorder: recorder))
                .immediate(.get, "/x") { (_, _) throws(HTTPError) in
                    recorder.add("grouped")
                    return HTTPResponse(status: .ok)
                }
        }) { harness in
            let plain = try await request(harness.port, "GET", "/plain")
            #expect(plain.status == 200 && plain.header("x-trace") == "outer")
            #expect(plain.header("x-in-task") == "yes", "router middleware must wrap the immediate handler")
            let grouped = try await request(harness.port, "GET", "/g/x")
            #expect(grouped.status == 200)
            #expect(recorder.all == ["outer>", "plain", "<outer", "outer>", "group>", "grouped", "<group", "<outer"])
        }
    }
}
