import Timing
import BillingModel
import ServiceRuntime
import Telemetry

/// The background service that loads a ``CatalogCache`` at start-up and keeps it fresh.
///
/// It refreshes at once, then waits ``CatalogRefreshSchedule/interval``
/// after a refresh in which every source succeeded, or a growing backoff after
/// one in which any failed (so a provider that is down at start-up is retried
/// soon, and the service becomes ready as soon as a load succeeds). It stops
/// when its task is cancelled, cancelling a refresh in flight.
public struct CatalogRefresher: Service {
    public let name = "catalog-refresher"
    public let cache: CatalogCache
    public let schedule: CatalogRefreshSchedule
    let logger: Logger

    public init(cache: CatalogCache, schedule: CatalogRefreshSchedule, logger: Logger) {
        self.cache = cache
        self.schedule = schedule
        self.logger = logger
    }

    public func run() async throws {
        try await withTaskCancellationHandler {
            var failures = 0
            var wasLoaded = cache.isLoaded
            while !Task.isCancelled {
                let outcome = await cache.refresh()
                if outcome.isLoaded && !wasLoaded {
                    logger.info("catalog loaded", metadata: ["catalog.items": String(outcome.itemCount)])
                }
                wasLoaded = outcome.isLoaded
                failures = outcome.ok ? 0 : failures + 1
                let delay = schedule.delay(afterConsecutiveFailures: failures)
                if !outcome.ok {
                    logger.notice(
                        "catalog refresh incomplete; retrying",
                        metadata: [
                            "failed.providers": outcome.failures.map(\.provider.rawValue).joined(separator: ","),
                            "retry.in_seconds": String(delay.inSeconds), "catalog.loaded": String(outcome.isLoaded),
                        ])
                }
                try await Task.sleep(for: delay)
            }
            throw CancellationError()
        } onCancel: {
            cache.cancelRefresh()
        }
    }
}
