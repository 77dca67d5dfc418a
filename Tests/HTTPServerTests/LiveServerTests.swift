import Foundation
@testable import HTTPServer
import Synchronization
import Telemetry
import Testing

final class Recorder: Sendable {
    private let entries = Mutex<[String]>([])
    func add(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

struct Tracing: RouterMiddleware {
    let name: String
    let recorder: Recorder
    func handle(
        _ request: HTTPRequest, context: RequestContext,
        next: (HTTPRequest, RequestContext) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        recorder.add("\(name)>")
        var response = try await next(request, context)
        recorder.add("<\(name)")
        response.headers.add(name: "X-Trace", value: name)
        return response
    }
}

struct SecretFailure: Error, CustomStringConvertible {
    var description: String { "password=hunter2 at db.internal:5432" }
}

/// Routing, errors, request ids and metrics through a real socket.
@Suite struct LiveServerTests {
    @Test func routesParametersGroupsAndQuery() async throws {
        try await withServer(routes: { router in
            let api = router.group("/api")
            api.get("/products/{id}") { _, context in
                Product(id: try context.parameters.require("id"), name: "Mug")
            }
            api.get("/search") { request, _ in
                ["tags": request.query.values(for: "tag").joined(separator: "|"), "q": request.query["q"] ?? ""]
            }
            api.post("/echo") { request, _ in
                HTTPResponse(status: .created, headers: ["Content-Type": "text/plain"], body: request.body)
            }
        }) { harness in
            let product = try await request(harness.port, "GET", "/api/products/42")
            #expect(product.status == 200)
            #expect(product.header("content-type") == "application/json")
            #expect(try JSONDecoder().decode(Product.self, from: Data(product.body)) == Product(id: "42", name: "Mug"))

            let search = try await request(harness.port, "GET", "/api/search?tag=a&tag=b%26c&q=caf%C3%A9+au+lait")
            let decoded = try JSONDecoder().decode([String: String].self, from: Data(search.body))
            #expect(decoded == ["tags": "a|b&c", "q": "café au lait"])

            let echo = try await request(harness.port, "POST", "/api/echo", body: "hello body")
            #expect(echo.status == 201)
            #expect(echo.text == "hello body")
        }
    }

    @Test func middlewareRunsOutermostFirst() async throws {
        let recorder = Recorder()
        try await withServer(routes: { router in
            router.add(middleware: Tracing(name: "outer", recorder: recorder))
            router.add(middleware: Tracing(name: "inner", recorder: recorder))
            router.group("/g").add(middleware: Tracing(name: "group", recorder: recorder))
                .get("/x") { _, _ in
                    recorder.add("handler"); return "ok"
                }
        }) { harness in
            let response = try await request(harness.port, "GET", "/g/x")
            #expect(response.status == 200)
            #expect(recorder.all == ["outer>", "inner>", "group>", "handler", "<group", "<inner", "<outer"])
            #expect(response.headers.filter { $0.0 == "X-Trace" }.map(\.1) == ["group", "inner", "outer"])
        }
    }

    @Test func notFoundMethodNotAllowedAndBadRequests() async throws {
        try await withServer(routes: { router in
            router.get("/items/{id}") { _, _ in "item" }
            router.put("/items/{id}") { _, _ in "put" }
        }) { harness in
            let missing = try await request(harness.port, "GET", "/nothing/here")
            #expect(missing.status == 404)
            #expect(missing.text == #"{"success":false,"error":"Not found","code":"not_found"}"#)

            let wrongMethod = try await request(harness.port, "DELETE", "/items/1")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.header("Allow") == "GET, HEAD, PUT")

            let badEscape = try await request(harness.port, "GET", "/items/%zz")
            #expect(badEscape.status == 400)
            let badQuery = try await request(harness.port, "GET", "/items/1?x=%4")
            #expect(badQuery.status == 400)
            #expect(badQuery.text == #"{"success":false,"error":"Malformed query string","code":"bad_request"}"#)

            // A request line libmicrohttpd cannot parse is answered 400 by libmicrohttpd itself.
            let port = harness.port
            let garbage = try await offPool {
                let connection = try RawConnection(port: port)
                try connection.send("THIS IS NOT HTTP\r\n\r\n")
                return try connection.readResponse()
            }
            #expect(garbage.status == 400)
        }
    }

    @Test func unexpectedErrorsBecomeOpaque500s() async throws {
        try await withServer(routes: { router in
            router.get("/boom") { _, _ -> HTTPResponse in throw SecretFailure() }
            router.get("/teapot") { _, _ -> HTTPResponse in throw HTTPError(418, "I'm a teapot") }
        }) { harness in
            let boom = try await request(harness.port, "GET", "/boom")
            #expect(boom.status == 500)
            #expect(boom.text == #"{"success":false,"error":"Internal server error","code":"internal_error"}"#)
            #expect(!boom.text.contains("hunter2") && !boom.headers.contains { $0.1.contains("hunter2") })
            #expect(harness.sink.lines.contains { $0.contains("handler failed") && $0.contains("\"level\":\"error\"") })

            let teapot = try await request(harness.port, "GET", "/teapot")
            #expect(teapot.status == 418)
            #expect(teapot.text == #"{"success":false,"error":"I'm a teapot","code":"client_error"}"#)
        }
    }

    @Test func requestIDIsEchoedAndLogged() async throws {
        try await withServer(routes: { router in
            router.get("/hello") { _, context in
                context.logger.info("saying hello")
                return "hi"
            }
        }) { harness in
            let given = try await request(harness.port, "GET", "/hello", headers: ["X-Request-Id": "abc-123.x:y"])
            #expect(given.header("X-Request-Id") == "abc-123.x:y")
            let lines = harness.sink.lines.filter { $0.contains(#""request_id":"abc-123.x:y""#) }
            #expect(lines.contains { $0.contains("saying hello") })
            let access = try #require(lines.first { $0.contains(#""message":"request""#) })
            #expect(access.contains(#""http.route":"/hello""#) && access.contains(#""http.status":"200""#))
            #expect(access.contains(#""http.method":"GET""#) && access.contains("http.duration_ms") && access.contains(#""http.response_bytes":"4""#))

            for unsafe in ["has space", String(repeating: "a", count: 200), "semi;colon"] {
                let replaced = try await request(harness.port, "GET", "/hello", headers: ["X-Request-Id": unsafe])
                let id = try #require(replaced.header("X-Request-Id"))
                #expect(id != unsafe)
                #expect(id.count == 32 && id.allSatisfy(\.isHexDigit))
            }
            let generated = try await request(harness.port, "GET", "/hello")
            #expect(generated.header("X-Request-Id")?.count == 32)
        }
    }

    /// A handler's outcome rides on the access line: one line per request.
    @Test func theAccessLineCarriesTheResponsesLogFields() async throws {
        try await withServer(routes: { router in
            router.post("/stored") { _, _ in
                var response = HTTPResponse(status: .ok, body: Array("ok".utf8))
                response.accessLogMetadata = ["kafka.offset": "41", "http.status": "999"]
                return response
            }
        }) { harness in
            let answer = try await request(harness.port, "POST", "/stored", headers: ["X-Request-Id": "one-line"])
            #expect(answer.status == 200 && answer.text == "ok")
            #expect(!answer.headers.contains { $0.1 == "41" }, "log fields are never sent")
            let lines = harness.sink.lines.filter { $0.contains(#""request_id":"one-line""#) }
            #expect(lines.count == 1)
            #expect(lines.first?.contains(#""kafka.offset":"41""#) == true)
            #expect(lines.first?.contains(#""http.status":"200""#) == true, "the server's own fields win")
        }
    }

    @Test func metricsAreLabelledByRouteTemplate() async throws {
        try await withServer(routes: { router in
            router.get("/api/products/{id}") { _, _ in "p" }
        }) { harness in
            for id in ["1", "2", "3"] {
                let response = try await request(harness.port, "GET", "/api/products/\(id)")
                #expect(response.status == 200)
            }
            let unmatched = try await request(harness.port, "GET", "/random/path/77")
            #expect(unmatched.status == 404)
            let invented = try await request(harness.port, "BREW", "/api/products/1")
            #expect(invented.status == 405)
            let text = harness.metrics.renderPrometheus()
            #expect(text.contains(#"http_requests_total{method="OTHER",route="/api/products/{id}",status="405"} 1"#))
            #expect(text.contains(#"http_requests_total{method="GET",route="/api/products/{id}",status="200"} 3"#))
            #expect(text.contains(#"http_requests_total{method="GET",route="<unmatched>",status="404"} 1"#))
            #expect(text.contains(#"http_request_duration_seconds_count{method="GET",route="/api/products/{id}"} 3"#))
            #expect(text.contains("http_requests_in_flight 0"))
            #expect(!text.contains("/api/products/1") && !text.contains("/random/path"))
        }
    }

    @Test func keepAliveServesSeveralRequestsOnOneConnection() async throws {
        try await withServer(routes: { router in
            router.get("/n/{n}") { _, context in try context.parameters.require("n") }
        }) { harness in
            let port = harness.port
            let bodies = try await offPool {
                let connection = try RawConnection(port: port)
                return try (1...3).map { n -> String in
                    try connection.send("GET /n/\(n) HTTP/1.1\r\nHost: x\r\n\r\n")
                    let response = try connection.readResponse()
                    return response.text + (response.header("Connection")?.lowercased() == "close" ? "!" : "")
                }
            }
            #expect(bodies == ["\"1\"", "\"2\"", "\"3\""])
        }
    }
}
