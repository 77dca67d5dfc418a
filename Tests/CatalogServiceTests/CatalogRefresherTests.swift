import ServiceSettings
import Catalog
import CatalogService
import Foundation
import HTTPServer
import BillingModel
import ServiceRuntime
import TestSupport
import Testing

@Suite("Catalog refresher service and configuration")
struct CatalogRefresherTests {
    @Test("the refresher retries with backoff until a first load succeeds, then the service is ready")
    func retriesUntilLoaded() async throws {
        let source = FakeCatalogSource(failing: .lemonsqueezy)
        let configuration = CatalogConfiguration(
            refreshInterval: .seconds(300), initialRetryDelay: .milliseconds(5),
            maximumRetryDelay: .milliseconds(20))
        let app = try makeApp([source], configuration: configuration)
        let running = Task { try await app.refresher.run() }

        #expect(await eventually { source.fetchCount >= 3 }, "the refresher should keep retrying")
        #expect(try await app.get("/readyz").status == .serviceUnavailable)
        source.set(items: lemonItems)
        #expect(await eventually { (try? await app.get("/readyz").status) == .ok }, "ready after the first successful load")
        #expect(try await app.get("/api/products").status == .ok)

        // After a full success it waits the refresh interval: no more fetches soon.
        let settled = source.fetchCount
        try await Task.sleep(for: .milliseconds(100))
        #expect(source.fetchCount == settled)

        running.cancel()
        await #expect(throws: CancellationError.self) { try await running.value }
    }

    @Test("stopping the refresher cancels a fetch in flight")
    func cancelInFlight() async throws {
        let gate = Gate()
        let source = FakeCatalogSource(.paystack, items: paystackItems)
        source.hold(at: gate)
        let app = try makeApp([source])
        let running = Task { try await app.refresher.run() }
        #expect(await eventually { gate.arrivals == 1 })
        running.cancel()
        gate.open()
        await #expect(throws: CancellationError.self) { try await running.value }
        #expect(source.cancelledFetches == 1, "the fetch should have seen the cancellation")
        #expect(!app.store.isLoaded)
    }

    @Test("CATALOG_REFRESH_INTERVAL and retry delays come from the environment with checked bounds")
    func configuration() throws {
        let defaults = try ConfigReader.load(Environment([:])) { CatalogConfiguration.fromEnvironment(&$0) }
        #expect(defaults.refreshInterval == .seconds(300))

        let custom = try ConfigReader.load(Environment(["CATALOG_REFRESH_INTERVAL": "5m", "CATALOG_RETRY_INITIAL_DELAY": "250ms"])) {
            CatalogConfiguration.fromEnvironment(&$0)
        }
        #expect(custom.refreshInterval == .seconds(300))
        #expect(custom.initialRetryDelay == .milliseconds(250))

        #expect(throws: ConfigurationError.self) {
            try ConfigReader.load(Environment(["CATALOG_REFRESH_INTERVAL": "soon"])) { CatalogConfiguration.fromEnvironment(&$0) }
        }
        do {
            _ = try ConfigReader.load(Environment(["CATALOG_REFRESH_INTERVAL": "0"])) { CatalogConfiguration.fromEnvironment(&$0) }
            Issue.record("a zero interval must be refused")
        } catch {
            #expect(error.variables == ["CATALOG_REFRESH_INTERVAL"])
        }
    }

    @Test("backoff doubles from the initial delay and is capped by the max delay and the interval")
    func backoff() {
        let configuration = CatalogConfiguration(refreshInterval: .seconds(30), initialRetryDelay: .seconds(1), maximumRetryDelay: .seconds(60))
        #expect(configuration.delay(afterConsecutiveFailures: 0) == .seconds(30))
        #expect(configuration.delay(afterConsecutiveFailures: 1) == .seconds(1))
        #expect(configuration.delay(afterConsecutiveFailures: 2) == .seconds(2))
        #expect(configuration.delay(afterConsecutiveFailures: 5) == .seconds(16))
        #expect(configuration.delay(afterConsecutiveFailures: 6) == .seconds(30))
        #expect(configuration.delay(afterConsecutiveFailures: 10_000) == .seconds(30))
    }
}
