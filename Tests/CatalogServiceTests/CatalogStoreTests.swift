import Catalog
import CatalogService
import Foundation
import HTTPServer
import BillingModel
@testable import SeedModels
import Telemetry
import TestSupport
import Testing

@Suite("Catalog store: last good data, partial failure, age, coalescing")
struct CatalogStoreTests {
    @Test("when the only source fails, the last good catalog is served and its age keeps growing")
    func lastGoodCatalogWhenSourceFails() async throws {
        let source = FakeCatalogSource(.lemonsqueezy, items: lemonItems)
        let clock = ManualClock()
        let metrics = MetricsRegistry()
        let app = try makeApp([source], clock: clock, metrics: metrics)
        #expect(await app.catalog.refresh().ok)
        let good = try await app.get("/api/products")
        #expect(good.headers["X-Catalog-Age"] == "0")

        clock.advance(by: 30)
        source.fail()
        let outcome = await app.catalog.refresh()
        #expect(outcome.failures.map(\.provider) == [.lemonsqueezy])
        #expect(outcome.isLoaded && outcome.itemCount == 3)

        let stale = try await app.get("/api/products")
        #expect(stale.status == .ok)
        #expect(stale.body == good.body)
        #expect(stale.headers["ETag"] == good.headers["ETag"])
        #expect(stale.headers["X-Catalog-Age"] == "30")

        clock.advance(by: 15.5)
        #expect(try await app.get("/api/products").headers["X-Catalog-Age"] == "45")
        #expect(try await app.get("/api/products/ls_20").headers["X-Catalog-Age"] == "45")

        let text = metrics.renderPrometheus()
        #expect(text.contains("catalog_refresh_total{result=\"ok\"} 1\n"))
        #expect(text.contains("catalog_refresh_total{result=\"error\"} 1\n"))
        #expect(text.contains("catalog_items 3\n"))
        #expect(text.contains("catalog_age_seconds 45.5\n"))

        source.set(items: lemonItems)
        #expect(await app.catalog.refresh().ok)
        #expect(try await app.get("/api/products").headers["X-Catalog-Age"] == "0")
        #expect(metrics.renderPrometheus().contains("catalog_age_seconds 0\n"))
    }

    @Test("catalog_age_seconds is NaN before the first load")
    func ageBeforeLoad() throws {
        let metrics = MetricsRegistry()
        _ = try makeApp([FakeCatalogSource(failing: .paystack)], metrics: metrics)
        #expect(metrics.renderPrometheus().contains("catalog_age_seconds NaN\n"))
    }

    @Test("with two sources, a failing one keeps its last good items and the other's fresh items are served")
    func partialFailure() async throws {
        let lemon = FakeCatalogSource(.lemonsqueezy, items: lemonItems)
        let paystack = FakeCatalogSource(.paystack, items: paystackItems)
        let clock = ManualClock()
        let app = try makeApp([lemon, paystack], clock: clock)
        _ = await app.catalog.refresh()

        clock.advance(by: 100)
        lemon.fail()
        var renamed = paystackItems
        renamed[0].name = "Basic (new)"
        paystack.set(items: renamed)
        let outcome = await app.catalog.refresh()
        #expect(outcome.refreshed == [.paystack])
        #expect(outcome.failures.map(\.provider) == [.lemonsqueezy])

        let response = try await app.get("/api/products")
        let products = try response.decode(ProductResponse.self).products.data
        #expect(products.map(\.id) == ["ls_10.101", "ls_10.102", "ls_20", "ps_PLN_abc"])
        #expect(products.map(\.attributes.name) == ["Pro monthly", "Pro yearly", "Icon pack", "Basic (new)"])
        // The served data includes Lemon Squeezy items fetched 100 s ago.
        #expect(response.headers["X-Catalog-Age"] == "100")

        clock.advance(by: 50)
        lemon.set(items: Array(lemonItems.prefix(2)))
        #expect(await app.catalog.refresh().ok)
        let recovered = try await app.get("/api/products")
        #expect(try recovered.decode(ProductResponse.self).products.data.map(\.id) == ["ls_10.101", "ls_10.102", "ps_PLN_abc"])
        #expect(recovered.headers["X-Catalog-Age"] == "0")
    }

    @Test("a source that never loaded does not block the others; its items appear once it recovers")
    func oneSourceDownAtStartup() async throws {
        let lemon = FakeCatalogSource(failing: .lemonsqueezy)
        let paystack = FakeCatalogSource(.paystack, items: paystackItems)
        let app = try makeApp([lemon, paystack])
        let outcome = await app.catalog.refresh()
        #expect(outcome.isLoaded && !outcome.ok)
        #expect(try await app.get("/readyz").status == .ok)
        #expect(try await app.get("/api/products").decode(ProductResponse.self).products.data.map(\.id) == ["ps_PLN_abc"])

        lemon.set(items: lemonItems)
        _ = await app.catalog.refresh()
        #expect(
            try await app.get("/api/products").decode(ProductResponse.self).products.data.map(\.id)
                == ["ls_10.101", "ls_10.102", "ls_20", "ps_PLN_abc"])
    }

    @Test("concurrent refresh triggers coalesce into one fetch in flight")
    func refreshCoalescing() async throws {
        let gate = Gate()
        let source = FakeCatalogSource(.lemonsqueezy, items: lemonItems)
        source.hold(at: gate)
        let app = try makeApp([source])
        let store = app.catalog

        let first = store.triggerRefresh()
        #expect(await eventually { gate.arrivals == 1 }, "the first fetch should start")
        #expect(store.isRefreshing)
        // 32 concurrent triggers while the fetch is held: all join it.
        let joined = await withTaskGroup(of: Task<CatalogRefreshOutcome, Never>.self) { group in
            for _ in 0..<32 { group.addTask { store.triggerRefresh() } }
            var tasks: [Task<CatalogRefreshOutcome, Never>] = []
            for await task in group { tasks.append(task) }
            return tasks
        }
        #expect(source.fetchCount == 1)
        gate.open()
        let outcome = await first.value
        #expect(outcome.ok && outcome.itemCount == 3)
        for task in joined { #expect(await task.value == outcome) }
        #expect(source.fetchCount == 1)
        #expect(store.refreshesStarted == 1)
        #expect(!store.isRefreshing)

        // Once finished, the next trigger fetches again.
        _ = await store.refresh()
        #expect(source.fetchCount == 2)
        #expect(store.refreshesStarted == 2)
    }

    @Test("multi-variant products get '<product>.<variant>' ids; bad and duplicate ids are skipped, not served")
    func idScheme() async throws {
        let items = [
            makeItem(.lemonsqueezy, product: "7", variant: "71", name: "A"),
            makeItem(.lemonsqueezy, product: "7", variant: "71", name: "A again"), // duplicate variant
            makeItem(.lemonsqueezy, product: "8", variant: "bad id", name: "B"), // unusable variant id
            makeItem(.lemonsqueezy, product: "9", variant: "91", name: "C"),
            makeItem(.lemonsqueezy, product: "9", variant: "92", name: "D"),
            makeItem(.paystack, product: "PLN_x", variant: "PLN_x", name: "foreign"), // wrong provider for this source
        ]
        let app = try makeApp([FakeCatalogSource(.lemonsqueezy, items: items)])
        _ = await app.catalog.refresh()
        let products = try await app.get("/api/products").decode(ProductResponse.self).products.data
        #expect(products.map(\.id) == ["ls_7", "ls_9.91", "ls_9.92"])
        #expect(products.map(\.variantId) == ["ls_71", "ls_91", "ls_92"])
        #expect(products.map(\.attributes.name) == ["A", "C", "D"])
    }

    @Test("the cache names a purchase by the id the list shows for it (the entitlement answer's product_id), nil when it does not know it")
    func cacheNamesPurchasesAsTheListDoes() async throws {
        let lemon = FakeCatalogSource(.lemonsqueezy, items: lemonItems)
        let app = try makeApp([lemon, FakeCatalogSource(.paystack, items: paystackItems)])
        let cache = app.catalog
        #expect(cache.catalogEntryID(provider: .lemonsqueezy, productID: "10", variantID: "102") == nil, "not loaded yet")
        _ = await cache.refresh()
        let products = try await app.get("/api/products").decode(ProductResponse.self).products.data
        let items = lemonItems + paystackItems
        #expect(products.count == items.count)
        for (product, item) in zip(products, items) {
            #expect(
                cache.catalogEntryID(provider: item.provider, productID: item.productID, variantID: item.variantID)?.description == product.id,
                "\(item.productID).\(item.variantID)")
        }
        // "Pro yearly" is ls_10.102, never ls_10; the single-variant "Icon pack" is ls_20.
        #expect(cache.catalogEntryID(provider: .lemonsqueezy, productID: "10", variantID: "102")?.description == "ls_10.102")
        #expect(cache.catalogEntryID(provider: .lemonsqueezy, productID: "20", variantID: "201")?.description == "ls_20")
        #expect(cache.catalogEntryID(provider: .paystack, productID: "PLN_abc", variantID: "PLN_abc")?.description == "ps_PLN_abc")
        // Unknown: a variant of another product, a removed one, another provider's ids.
        #expect(cache.catalogEntryID(provider: .lemonsqueezy, productID: "20", variantID: "102") == nil)
        #expect(cache.catalogEntryID(provider: .lemonsqueezy, productID: "10", variantID: "103") == nil)
        #expect(cache.catalogEntryID(provider: .paystack, productID: "10", variantID: "101") == nil)

        // The yearly variant removed: the product has one variant left, listed (and named) as ls_10.
        lemon.set(items: [lemonItems[0], lemonItems[2]])
        _ = await cache.refresh()
        #expect(try await app.get("/api/products").decode(ProductResponse.self).products.data.map(\.id) == ["ls_10", "ls_20", "ps_PLN_abc"])
        #expect(cache.catalogEntryID(provider: .lemonsqueezy, productID: "10", variantID: "101")?.description == "ls_10")
        #expect(cache.catalogEntryID(provider: .lemonsqueezy, productID: "10", variantID: "102") == nil)
    }

    @Test("the id rule: the product's id with one variant, '<product>.<variant>' with several; the fallback is always '<product>.<variant>'")
    func idRule() {
        let ids = CatalogEntryIDs(lemonItems + paystackItems)
        #expect(lemonItems.map { ids.id(of: $0)?.description } == ["ls_10.101", "ls_10.102", "ls_20"])
        #expect(
            ids.variantCount(.lemonsqueezy, "10") == 2 && ids.variantCount(.lemonsqueezy, "20") == 1 && ids.variantCount(.lemonsqueezy, "30") == 0)
        #expect(ids.id(provider: .lemonsqueezy, productID: "30", variantID: "301") == nil)
        #expect(CatalogEntryIDs.id(provider: .lemonsqueezy, productID: "2", variantID: "3", variantCount: 1)?.description == "ls_2")
        #expect(CatalogEntryIDs.id(provider: .lemonsqueezy, productID: "2", variantID: "3", variantCount: 2)?.description == "ls_2.3")
        #expect(CatalogEntryIDs.fallbackID(provider: .lemonsqueezy, productID: "2", variantID: "3")?.description == "ls_2.3")
        #expect(CatalogEntryIDs.fallbackID(provider: .paystack, productID: "PLN_a", variantID: "PLN_a")?.description == "ps_PLN_a")
        #expect(CatalogEntryIDs.fallbackID(provider: .lemonsqueezy, productID: "", variantID: "3")?.description == "ls_3")
        #expect(CatalogEntryIDs.fallbackID(provider: .lemonsqueezy, productID: "bad id", variantID: "3")?.description == "ls_3")
        #expect(CatalogEntryIDs.fallbackID(provider: .lemonsqueezy, productID: nil, variantID: nil) == nil)
    }

    @Test("a source returning more than the item limit counts as failed and keeps its last good items")
    func itemLimit() async throws {
        let source = FakeCatalogSource(.paystack, items: paystackItems)
        let app = try makeApp([source])
        _ = await app.catalog.refresh()
        let many = (0...CatalogCache.defaultMaximumItemsPerSource).map {
            makeItem(.paystack, product: "PLN_\($0)", variant: "PLN_\($0)", name: "n")
        }
        source.set(items: many)
        let outcome = await app.catalog.refresh()
        #expect(outcome.failures.first?.reason.contains("limit") == true)
        #expect(outcome.itemCount == 1)
    }
}
