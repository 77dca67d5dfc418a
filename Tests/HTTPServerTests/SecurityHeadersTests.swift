import Foundation
import Telemetry
import Testing

@testable import HTTPServer

/// Every answer, through a real socket and without one, carries `nosniff`
/// and the framing headers; HSTS only when the TLS front says the request
/// came over TLS; a page's own policy is kept.
@Suite struct SecurityHeadersTests {
    static func routes(_ router: Router) {
        router.get("/api/thing") { _, _ in ["ok": true] }
        router.get("/page") { _, _ in
            HTTPResponse(
                status: .ok, headers: ["Content-Type": "text/html", "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'"],
                body: Array("<p>hi</p>".utf8))
        }
        router.get("/fails") { _, _ -> HTTPResponse in throw HTTPError(.conflict, "No", code: "conflict") }
        router.post("/upload") { _, _ in ["ok": true] }
    }

    @Test func everyAnswerOnTheWireCarriesThemWhateverMadeIt() async throws {
        try await withServer(configure: { $0.maxBodyBytes = 10 }, routes: Self.routes) { harness in
            let answers = [
                try await request(harness.port, "GET", "/api/thing"), try await request(harness.port, "GET", "/fails"),
                try await request(harness.port, "GET", "/nowhere"), try await request(harness.port, "DELETE", "/api/thing"),
                try await request(harness.port, "POST", "/upload", body: String(repeating: "x", count: 100)),
            ]
            #expect(answers.map(\.status) == [200, 409, 404, 405, 413])
            for answer in answers {
                #expect(answer.header("x-content-type-options") == "nosniff", "\(answer.status)")
                #expect(answer.header("x-frame-options") == "DENY", "\(answer.status)")
                #expect(answer.header("content-security-policy") == "default-src 'none'; frame-ancestors 'none'", "\(answer.status)")
                #expect(answer.header("strict-transport-security") == nil, "plain HTTP, no TLS front: no HSTS")
            }
            let page = try await request(harness.port, "GET", "/page")
            #expect(page.header("content-security-policy") == "default-src 'self'; frame-ancestors 'none'", "the page's own policy is kept")
            #expect(page.header("x-content-type-options") == "nosniff")

            let overTLS = try await request(harness.port, "GET", "/api/thing", headers: ["X-Forwarded-Proto": "https"])
            #expect(overTLS.header("strict-transport-security") == "max-age=31536000")
            let notFoundOverTLS = try await request(harness.port, "GET", "/nowhere", headers: ["X-Forwarded-Proto": "HTTPS, http"])
            #expect(notFoundOverTLS.header("strict-transport-security") == "max-age=31536000")
            let plain = try await request(harness.port, "GET", "/api/thing", headers: ["X-Forwarded-Proto": "http, https"])
            #expect(plain.header("strict-transport-security") == nil, "only the client's own hop counts")
        }
    }

    @Test func answersWithoutASocketCarryThemToo() async throws {
        let router = Router()
        Self.routes(router)
        let responder = router.buildResponder()
        let logger = Logger(service: "security-headers-tests", minimumLevel: .critical)
        let plain = await responder.respond(to: try HTTPRequest(method: .get, target: "/fails"), logger: logger).response
        #expect(plain.headers["X-Content-Type-Options"] == "nosniff" && plain.headers["X-Frame-Options"] == "DENY")
        #expect(plain.headers["Strict-Transport-Security"] == nil)
        let tls = await responder.respond(
            to: try HTTPRequest(method: .get, target: "/api/thing", headers: ["X-Forwarded-Proto": "https"]), logger: logger
        ).response
        #expect(tls.headers["Strict-Transport-Security"] == "max-age=31536000")
        var already = HTTPResponse(status: .ok, headers: ["X-Frame-Options": "SAMEORIGIN"], body: [])
        SecurityHeaders.apply(to: &already, request: [:])
        #expect(already.headers["X-Frame-Options"] == "SAMEORIGIN", "an answer's own header is never replaced")
    }
}
