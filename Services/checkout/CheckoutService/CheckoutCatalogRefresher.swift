import Basics
import Models
import Providers
import ServiceRuntime
import Telemetry

/// Loads the ``CheckoutCatalog`` at start-up and refreshes it every
/// ``CheckoutConfiguration/catalogRefreshInterval``; after a failure it retries
/// sooner, doubling the delay up to the interval.
public struct CheckoutCatalogRefresher: Service {
    public let name = "catalog-refresher"
    let catalog: CheckoutCatalog
    let configuration: CheckoutConfiguration
    let metrics: CheckoutMetrics
    let logger: Logger

    public func run() async throws {
        var failures = 0
        while !Task.isCancelled {
            let failed = await catalog.refresh()
            for client in catalog.providers {
                metrics.catalogItems(client.provider).set(Double(catalog.itemCount(client.provider)))
            }
            if failed.isEmpty {
                failures = 0
            } else {
                failures += 1
                for (provider, error) in failed.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                    metrics.catalogRefreshFailures.increment()
                    logger.warning("catalog refresh failed", metadata: ["provider": provider.rawValue, "error": error.description])
                }
            }
            let interval = configuration.catalogRefreshInterval
            let delay =
                failures == 0
                ? interval
                : Backoff(initial: min(configuration.catalogRetryDelay, interval), maximum: interval).delay(afterFailures: failures)
            do {
                try await Task.sleep(for: delay)
            } catch {
                return
            }
        }
    }
}
