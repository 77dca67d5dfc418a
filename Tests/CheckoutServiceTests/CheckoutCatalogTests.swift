import Catalog
import CheckoutService
import CryptoPrimitives
import Foundation
import HTTPServer
import BillingModel
import Postgres
import Providers
import Synchronization
import Telemetry
import TestSupport
import Testing

/// The checkout's catalog, the shared `CatalogCache`, over fake sources: no
/// database, broker or sandbox. The pool points at a port nothing listens on
/// (nothing here reaches it); `CreateCheckoutTests` covers the same paths
/// against the provider sandbox.
@Suite struct CheckoutCatalogTests {
    /// A provider's catalog API as the test sets it.
    final class FakeCatalogSource: CatalogSource {
        struct Unavailable: Error, CustomStringConvertible {
            var description: String { "provider unavailable (fake)" }
        }

        let provider: Provider
        private let result: Mutex<Result<[CatalogItem], Unavailable>>

        init(_ provider: Provider, items: [CatalogItem]) {
            self.provider = provider
            result = Mutex(.success(items))
        }

        /// A source whose fetches fail until ``set(items:)``.
        init(failing provider: Provider) {
            self.provider = provider
            result = Mutex(.failure(Unavailable()))
        }

        func set(items: [CatalogItem]) { result.withLock { $0 = .success(items) } }
        func fail() { result.withLock { $0 = .failure(Unavailable()) } }

        func fetchCatalog() async throws -> [CatalogItem] {
            try result.withLock { $0 }.get()
        }
    }

    final class DiscardingPublisher: RecordPublisher {
        func publish(topic: String, key: String, value: [UInt8]) async throws {}
    }

    static let secret = Array("checkout-catalog-tests-hs256-secret-0123".utf8)
    static let logger = Logger(service: "checkout-catalog-tests", minimumLevel: .critical)

    static let monthly = CatalogItem(
        provider: .lemonsqueezy, productID: "10", variantID: "101", name: "Pro monthly", price: 999, currency: "USD",
        interval: BillingInterval(unit: .month, count: 1))
    static let yearly = CatalogItem(
        provider: .lemonsqueezy, productID: "10", variantID: "102", name: "Pro yearly", price: 9_900, currency: "USD",
        interval: BillingInterval(unit: .year, count: 1))
    static let basic = CatalogItem(
        provider: .paystack, productID: "PLN_basic", variantID: "PLN_basic", name: "Basic", price: 500_000, currency: "NGN",
        interval: BillingInterval(unit: .month, count: 1))

    static func id(_ text: String) throws -> CatalogID { try #require(CatalogID(text)) }

    /// `POST /api/create-checkout` for `variant` through the router.
    static func createCheckout(_ app: CheckoutApplication, variant: String) async throws -> HTTPResponse {
        let token = try JWTSigner(hs256Secret: secret).sign([
            "sub": .string("buyer"), "email": .string("buyer@example.com"), "exp": .int(Int(Date().timeIntervalSince1970 + 600)),
        ])
        let headers: HTTPHeaders = ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]
        let request = try HTTPRequest(
            method: .post, target: "/api/create-checkout", headers: headers, body: Array(#"{"variantId":"\#(variant)"}"#.utf8))
        return await app.respond(to: request, logger: logger)
    }

    @Test func lookupsFoundUnknownNotLoadedAndTheLastGoodCopyOfAFailingSource() async throws {
        let lemon = FakeCatalogSource(.lemonsqueezy, items: [Self.monthly, Self.yearly])
        let paystack = FakeCatalogSource(failing: .paystack)
        let metrics = MetricsRegistry()
        let pool = PostgresPool(configuration: try PostgresConfiguration(url: "postgresql://nobody@127.0.0.1:1/none?connect_timeout=1"))
        let app = buildCheckoutApplication(
            auth: .jwt(try JWTVerifier(key: .hs256(secret: Self.secret))), ownership: TestOwnership.proof, providers: ProviderRegistry(providers: []),
            catalogSources: [lemon, paystack], pool: pool, publisher: DiscardingPublisher(), logger: Self.logger, metrics: metrics)
        let catalog = app.catalog

        // Nothing loaded yet.
        #expect(catalog.lookup(try Self.id("ls_101")) == .notLoaded)
        #expect(!catalog.allSourcesLoaded)

        // Lemon Squeezy loads, Paystack is down.
        let first = await catalog.refresh()
        #expect(first.refreshed == [.lemonsqueezy] && first.failures.map(\.provider) == [.paystack])
        #expect(catalog.lookup(try Self.id("ls_101")) == .found(Self.monthly))
        #expect(catalog.lookup(try Self.id("ls_102")) == .found(Self.yearly))
        #expect(catalog.lookup(try Self.id("ls_999")) == .unknown)
        #expect(catalog.lookup(try Self.id("ps_PLN_basic")) == .notLoaded)
        #expect(!catalog.allSourcesLoaded, "readiness waits for every provider")
        // The same answers through create-checkout, before anything reaches a provider or the database.
        let unknown = try await Self.createCheckout(app, variant: "ls_999")
        #expect(unknown.status == .notFound, "\(String(decoding: unknown.body, as: UTF8.self))")
        let notLoaded = try await Self.createCheckout(app, variant: "ps_PLN_basic")
        #expect(notLoaded.status == .serviceUnavailable && notLoaded.headers["Retry-After"] == "5")

        // Paystack recovers; then Lemon Squeezy fails and keeps its last good copy.
        paystack.set(items: [Self.basic])
        #expect(await catalog.refresh().ok)
        #expect(catalog.lookup(try Self.id("ps_PLN_basic")) == .found(Self.basic))
        #expect(catalog.allSourcesLoaded)
        lemon.fail()
        let third = await catalog.refresh()
        #expect(third.failures.map(\.provider) == [.lemonsqueezy])
        #expect(catalog.lookup(try Self.id("ls_102")) == .found(Self.yearly))
        #expect(catalog.lookup(try Self.id("ls_999")) == .unknown)

        // A provider with no source is unknown, not "not loaded".
        let lemonOnly = buildCheckoutApplication(
            auth: .disabled, ownership: TestOwnership.proof, providers: ProviderRegistry(providers: []), catalogSources: [lemon], pool: pool,
            publisher: DiscardingPublisher(), logger: Self.logger)
        #expect(lemonOnly.catalog.lookup(try Self.id("ps_PLN_basic")) == .unknown)

        let text = metrics.renderPrometheus()
        #expect(text.contains("checkout_catalog_items{provider=\"lemonsqueezy\"} 2\n"), "\(text)")
        #expect(text.contains("checkout_catalog_items{provider=\"paystack\"} 1\n"))
        #expect(text.contains("checkout_catalog_refresh_failures_total 2\n"))
        await pool.close()
    }
}
