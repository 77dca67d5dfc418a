import CatalogService
import Foundation
import HTTPClient
import HTTPServer
import BillingModel
@testable import SeedModels
import ServiceRuntime
import TestSupport
import Testing

@Suite("Catalog over a real socket")
struct CatalogLiveTests {
    @Test("the service group serves readiness, the list, 304s and metrics on an ephemeral port")
    func liveServer() async throws {
        let source = FakeCatalogSource(.lemonsqueezy, items: lemonItems)
        let gate = Gate()
        source.hold(at: gate)
        let app = try buildCatalogApplication(sources: [source], http: loopbackHTTPConfiguration(), logger: quietLogger)
        let group = ServiceGroup(services: app.services, configuration: .init(stopTimeout: .seconds(5), signals: []), logger: quietLogger)
        let running = Task { try await group.run() }
        defer { group.triggerGracefulShutdown(reason: "test finished") }

        #expect(await eventually { app.server.port != nil }, "the server should bind")
        let port = try #require(app.server.port)
        let base = "http://127.0.0.1:\(port)"
        // Generous: the suite's first seconds share two cores with every other suite's start.
        let client = HTTPClient(configuration: HTTPClientConfiguration(timeout: .seconds(30), retryPolicy: .none))

        // The first load is held: alive, not ready, 503 for products.
        #expect(try await client.get(base + "/healthz").status == 200)
        #expect(try await client.get(base + "/readyz").status == 503)
        let early = try await client.get(base + "/api/products")
        #expect(early.status == 503)
        #expect(early.bodyString == #"{"success":false,"error":"Catalog not loaded yet","code":"catalog_not_loaded"}"#)

        gate.open()
        #expect(await eventually { (try? await client.get(base + "/readyz").status) == 200 })

        let list = try await client.get(base + "/api/products")
        #expect(list.status == 200)
        let decoded = try list.decode(ProductResponse.self)
        #expect(decoded.products.data.map(\.id) == ["ls_10.101", "ls_10.102", "ls_20"])
        let etag = try #require(list.headers["ETag"])
        #expect(list.headers["Cache-Control"] == "public, max-age=60")
        #expect(list.headers["X-Catalog-Age"] != nil)

        let notModified = try await client.get(base + "/api/products", headers: ["If-None-Match": etag])
        #expect(notModified.status == 304)
        #expect(notModified.body.isEmpty)
        #expect(notModified.headers["ETag"] == etag)

        let single = try await client.get(base + "/api/products/ls_10.102")
        #expect(try single.decode(SingleProductResponse.self).product.variantId == "ls_102")
        #expect(try await client.get(base + "/api/products/ls_nope").status == 404)

        let metrics = try await client.get(base + "/metrics").bodyString
        #expect(metrics.contains("catalog_items 3\n"))
        #expect(metrics.contains("catalog_refresh_total{result=\"ok\"} 1\n"))
        #expect(metrics.contains("catalog_age_seconds "))

        group.triggerGracefulShutdown(reason: "test finished")
        try await running.value
    }
}
