@testable import SeedModels
import Catalog
import CatalogService
import Foundation
import HTTPServer
import BillingModel
import Testing

@Suite("Catalog routes (router, no socket)")
struct CatalogRoutesTests {
    @Test("the list decodes with the seed's iOS models, one entry per variant, ids unique and opaque")
    func listDecodesWithSeedModels() async throws {
        let app = try makeApp([FakeCatalogSource(.lemonsqueezy, items: lemonItems), FakeCatalogSource(.paystack, items: paystackItems)])
        #expect(await app.catalog.refresh().ok)

        let response = try await app.get("/api/products")
        #expect(response.status == .ok)
        #expect(response.headers["Content-Type"] == "application/json")
        let decoded = try response.decode(ProductResponse.self)
        #expect(decoded.success)
        let products = decoded.products.data
        #expect(products.map(\.id) == ["ls_10.101", "ls_10.102", "ls_20", "ps_PLN_abc"])
        #expect(products.map(\.variantId) == ["ls_101", "ls_102", "ls_201", "ps_PLN_abc"])
        #expect(Set(products.map(\.id)).count == products.count)
        #expect(products.allSatisfy { $0.type == "products" })
        #expect(products[0].attributes.name == "Pro monthly")
        #expect(products[0].attributes.price_formatted == "$9.99")
        #expect(products[0].attributes.buy_now_url == "https://store.example/buy/101")
        #expect(products[3].attributes.price_formatted == "₦5,000.00")
        // Paystack has no buy-now link: an empty string, never null.
        #expect(products[3].attributes.buy_now_url == "")
        #expect(!response.text.contains("\"buy_now_url\":null"))
    }

    @Test("order is provider order as configured, then the source's order, the same on every request")
    func stableOrder() async throws {
        let app = try makeApp([FakeCatalogSource(.paystack, items: paystackItems), FakeCatalogSource(.lemonsqueezy, items: lemonItems)])
        _ = await app.catalog.refresh()
        let first = try await app.get("/api/products")
        let ids = try first.decode(ProductResponse.self).products.data.map(\.id)
        #expect(ids == ["ps_PLN_abc", "ls_10.101", "ls_10.102", "ls_20"])
        _ = await app.catalog.refresh()
        let second = try await app.get("/api/products")
        #expect(second.body == first.body)
    }

    @Test("a single product by id, and 404 in the error envelope for unknown ids")
    func singleProductAndNotFound() async throws {
        let app = try makeApp([FakeCatalogSource(.lemonsqueezy, items: lemonItems)])
        _ = await app.catalog.refresh()

        let found = try await app.get("/api/products/ls_10.102")
        #expect(found.status == .ok)
        let product = try found.decode(SingleProductResponse.self)
        #expect(product.success)
        #expect(product.product.id == "ls_10.102")
        #expect(product.product.variantId == "ls_102")
        #expect(product.product.attributes.name == "Pro yearly")
        #expect(found.headers["ETag"] != nil)
        #expect(found.headers["Cache-Control"] == "public, max-age=60")
        #expect(found.headers["X-Catalog-Age"] == "0")

        let single = try await app.get("/api/products/ls_20")
        #expect(try single.decode(SingleProductResponse.self).product.variantId == "ls_201")

        for missing in ["ls_999", "ls_10", "ls_101", String(repeating: "x", count: 5_000), "%2Fetc"] {
            let response = try await app.get("/api/products/\(missing)")
            #expect(response.status == .notFound, "\(missing.prefix(20))")
            #expect(response.text == #"{"success":false,"error":"Product not found","code":"product_not_found"}"#)
            #expect(response.headers["X-Catalog-Age"] == "0")
        }
    }

    @Test("ETag and If-None-Match: 304 without a body for a match, a list, W/ and *; 200 otherwise")
    func conditionalRequests() async throws {
        let app = try makeApp([FakeCatalogSource(.lemonsqueezy, items: lemonItems)])
        _ = await app.catalog.refresh()
        for path in ["/api/products", "/api/products/ls_20"] {
            let full = try await app.get(path)
            let etag = try #require(full.headers["ETag"])
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count == 18, "strong, quoted 64-bit hex: \(etag)")

            for condition in [etag, "\"nope\", \(etag)", "W/\(etag)", "*", "\"a,b\" ,\(etag)"] {
                let response = try await app.get(path, headers: ["If-None-Match": condition])
                #expect(response.status.code == 304, "If-None-Match: \(condition)")
                #expect(response.body.isEmpty)
                #expect(response.headers["ETag"] == etag)
                #expect(response.headers["X-Catalog-Age"] != nil)
                #expect(response.headers["Cache-Control"] == "public, max-age=60")
            }
            for condition in ["\"nope\"", "\"\(etag)\"", "", "garbage", "\"unterminated"] {
                let response = try await app.get(path, headers: ["If-None-Match": condition])
                #expect(response.status == .ok, "If-None-Match: \(condition)")
                #expect(response.body == full.body)
            }
            // Two header fields: the second one matches.
            var headers = HTTPHeaders()
            headers.add(name: "If-None-Match", value: "\"old\"")
            headers.add(name: "If-None-Match", value: etag)
            #expect(try await app.get(path, headers: headers).status.code == 304)
        }
        let list = try await app.get("/api/products")
        let product = try await app.get("/api/products/ls_20")
        #expect(list.headers["ETag"] != product.headers["ETag"])
    }

    @Test("same body across refreshes keeps the ETag; a changed body gets a new one")
    func etagFollowsTheBody() async throws {
        let source = FakeCatalogSource(.lemonsqueezy, items: lemonItems)
        let clock = ManualClock()
        let app = try makeApp([source], clock: clock)
        _ = await app.catalog.refresh()
        let first = try #require(try await app.get("/api/products").headers["ETag"])
        let firstProduct = try #require(try await app.get("/api/products/ls_20").headers["ETag"])

        clock.advance(by: 60)
        _ = await app.catalog.refresh()
        #expect(try await app.get("/api/products").headers["ETag"] == first)

        var changed = lemonItems
        changed[2].name = "Icon pack deluxe"
        source.set(items: changed)
        _ = await app.catalog.refresh()
        let after = try await app.get("/api/products")
        #expect(after.headers["ETag"] != first)
        #expect(try await app.get("/api/products", headers: ["If-None-Match": first]).status == .ok)
        #expect(try await app.get("/api/products/ls_20").headers["ETag"] != firstProduct)
        // Unchanged products keep their own tags.
        let before = try await app.get("/api/products/ls_10.101", headers: [:])
        _ = await app.catalog.refresh()
        #expect(try await app.get("/api/products/ls_10.101").headers["ETag"] == before.headers["ETag"])
    }

    @Test("503 'Catalog not loaded yet' only while nothing was ever loaded")
    func unavailableBeforeFirstLoad() async throws {
        let source = FakeCatalogSource(failing: .lemonsqueezy)
        let app = try makeApp([source])
        for path in ["/api/products", "/api/products/ls_20"] {
            let response = try await app.get(path)
            #expect(response.status == .serviceUnavailable)
            #expect(response.text == #"{"success":false,"error":"Catalog not loaded yet","code":"catalog_not_loaded"}"#)
        }
        let failed = await app.catalog.refresh()
        #expect(!failed.ok && !failed.isLoaded)
        #expect(try await app.get("/api/products").status == .serviceUnavailable)

        source.set(items: lemonItems)
        #expect(await app.catalog.refresh().isLoaded)
        #expect(try await app.get("/api/products").status == .ok)
        source.fail()
        _ = await app.catalog.refresh()
        #expect(try await app.get("/api/products").status == .ok)
    }

    @Test("/readyz fails with the catalog check before the first load and passes after; /healthz always passes")
    func readiness() async throws {
        let source = FakeCatalogSource(failing: .paystack)
        let app = try makeApp([source])
        #expect(try await app.get("/healthz").status == .ok)
        let before = try await app.get("/readyz")
        #expect(before.status == .serviceUnavailable)
        #expect(before.text.contains("\"catalog\""))
        _ = await app.catalog.refresh()
        #expect(try await app.get("/readyz").status == .serviceUnavailable)

        source.set(items: paystackItems)
        _ = await app.catalog.refresh()
        #expect(try await app.get("/readyz").status == .ok)
    }

    @Test("building without a source, or with two sources for one provider, fails clearly")
    func setupErrors() throws {
        #expect(throws: CatalogSetupError.noSources) { try makeApp([]) }
        #expect(CatalogSetupError.noSources.description.contains("no catalog source is configured"))
        #expect(throws: CatalogSetupError.duplicateProvider(.paystack)) {
            try makeApp([FakeCatalogSource(.paystack, items: []), FakeCatalogSource(.paystack, items: [])])
        }
    }
}
