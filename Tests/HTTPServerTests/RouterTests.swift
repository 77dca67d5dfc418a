import Foundation
@testable import HTTPServer
import Synchronization
import Telemetry
import Testing

/// Routing without a socket: the responder is called directly.
@Suite struct RouterTests {
    let logger = Logger(service: "router-test", sink: CapturingLogSink())

    @Test func queryParsingDecodesAndKeepsRepeatedKeys() throws {
        let query = try QueryParameters(parsing: "tag=a&tag=b%20c&q=hello+world&flag&&empty=&n=42")
        #expect(query.values(for: "tag") == ["a", "b c"])
        #expect(query["q"] == "hello world")
        #expect(query["flag"] == "")
        #expect(query["empty"] == "")
        #expect(try query.get("n", as: Int.self) == 42)
        #expect(query["missing"] == nil)
        #expect(throws: HTTPError.self) { try QueryParameters(parsing: "bad=%zz") }
        #expect(throws: HTTPError.self) { try query.get("q", as: Int.self) }
    }

    @Test func templatesMatchLiteralsBeforeParameters() async throws {
        let router = Router()
        router.get("/products/{id}") { _, context in try context.parameters.require("id") }
        router.get("/products/featured") { _, _ in "featured" }
        router.get("/products/{id}/reviews/{review}") { _, context in
            try "\(context.parameters.require("id"))+\(context.parameters.require("review", as: Int.self))"
        }
        let responder = router.buildResponder()
        func body(_ path: String) async throws -> String {
            let (response, _) = await responder.respond(to: try HTTPRequest(method: .get, target: path), logger: logger)
            return String(decoding: response.body, as: UTF8.self)
        }
        #expect(try await body("/products/7") == "\"7\"")
        #expect(try await body("/products/featured") == "\"featured\"")
        #expect(try await body("/products/a%2Fb") == "\"a/b\"")
        #expect(try await body("/products/9/reviews/3") == "\"9+3\"")
        let (bad, route) = await responder.respond(to: try HTTPRequest(method: .get, target: "/products/9/reviews/x"), logger: logger)
        #expect(bad.status == .badRequest)
        #expect(route == "/products/{id}/reviews/{review}")
    }

    @Test func catchAllMountsTheRestOfThePathBehindSpecificRoutes() async throws {
        let router = Router()
        router.get("/healthz") { _, _ in "health" }
        router.get("/app/**") { _, context in "app:" + (try context.parameters.require("**")) }
        let responder = router.buildResponder()
        func answer(_ path: String) async throws -> (String, String) {
            let (response, route) = await responder.respond(to: try HTTPRequest(method: .get, target: path), logger: logger)
            return (String(decoding: response.body, as: UTF8.self), route)
        }
        #expect(try await answer("/healthz") == ("\"health\"", "/healthz"))
        #expect(try await answer("/app/a/b/c") == ("\"app:a/b/c\"", "/app/**"))
        #expect(try await answer("/app") == ("\"app:\"", "/app/**"))
        let (missing, _) = await responder.respond(to: try HTTPRequest(method: .get, target: "/other"), logger: logger)
        #expect(missing.status == .notFound)
    }

    @Test func groupsPrefixPathsAndNest() async throws {
        let router = Router()
        let api = router.group("/api")
        api.get("/ping") { _, context in context.route }
        api.group("v1").get("/items/{id}") { _, context in context.route }
        let responder = router.buildResponder()
        let (ping, pingRoute) = await responder.respond(to: try HTTPRequest(method: .get, target: "/api/ping"), logger: logger)
        #expect(ping.status == .ok && pingRoute == "/api/ping")
        let (_, itemRoute) = await responder.respond(to: try HTTPRequest(method: .get, target: "/api/v1/items/3"), logger: logger)
        #expect(itemRoute == "/api/v1/items/{id}")
    }

    @Test func methodNotAllowedListsAllowedMethods() async throws {
        let router = Router()
        router.get("/things") { _, _ in "list" }
        router.post("/things") { _, _ in "made" }
        let (response, route) = await router.buildResponder()
            .respond(to: try HTTPRequest(method: .delete, target: "/things"), logger: logger)
        #expect(response.status == .methodNotAllowed)
        #expect(response.headers["allow"] == "GET, HEAD, POST")
        #expect(route == "/things")
    }
}
