import Basics
import Models
import ServiceRuntime
import Telemetry

/// The background service that loads the catalog at start-up and keeps it fresh.
///
/// It refreshes at once, then waits ``CatalogConfiguration/refreshInterval``
/// after a refresh in which every source succeeded, or a growing backoff after
/// one in which any failed (so a provider that is down at start-up is retried
/// soon, and the service becomes ready as soon as one load succeeds). It stops
/// when its task is cancelled, cancelling a refresh in flight.
public struct CatalogRefresher: Service {
    public let name = "catalog-refresher"
    public let store: CatalogStore
    public let configuration: CatalogConfiguration
    let logger: Logger

    public init(store: CatalogStore, configuration: CatalogConfiguration, logger: Logger) {
        self.store = store
        self.configuration = configuration
        self.logger = logger
    }

    public func run() async throws {
        try await withTaskCancellationHandler {
            var failures = 0
            var wasLoaded = store.isLoaded
            while !Task.isCancelled {
                let outcome = await store.refresh()
                if outcome.isLoaded && !wasLoaded {
                    logger.info("catalog loaded", metadata: ["catalog.items": String(outcome.itemCount)])
                }
                wasLoaded = outcome.isLoaded
                failures = outcome.ok ? 0 : failures + 1
                let delay = configuration.delay(afterConsecutiveFailures: failures)
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
            store.cancelRefresh()
        }
    }
}
