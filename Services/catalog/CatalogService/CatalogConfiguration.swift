import ServiceSettings
import Catalog

/// The catalog's own settings (HTTP settings come from
/// `HTTPServerConfiguration.fromEnvironment`).
public struct CatalogConfiguration: Sendable {
    /// Time between background refreshes after a successful one
    /// (`CATALOG_REFRESH_INTERVAL`, default 300 s).
    public var refreshInterval: Duration
    /// First retry delay after a failed refresh; it doubles on each further
    /// failure (`CATALOG_RETRY_INITIAL_DELAY`, default 1 s).
    public var initialRetryDelay: Duration
    /// Longest retry delay (`CATALOG_RETRY_MAX_DELAY`, default 60 s); never
    /// more than ``refreshInterval``.
    public var maximumRetryDelay: Duration

    public init(refreshInterval: Duration = .seconds(300), initialRetryDelay: Duration = .seconds(1), maximumRetryDelay: Duration = .seconds(60)) {
        self.refreshInterval = refreshInterval
        self.initialRetryDelay = initialRetryDelay
        self.maximumRetryDelay = maximumRetryDelay
    }

    /// Shortest accepted interval or delay: anything shorter would hammer the
    /// providers' rate limits for no benefit to apps.
    public static let minimumDelay: Duration = .milliseconds(100)

    /// Reads `CATALOG_REFRESH_INTERVAL`, `CATALOG_RETRY_INITIAL_DELAY` and
    /// `CATALOG_RETRY_MAX_DELAY` (seconds, or `250ms`, `5m`…); values under
    /// ``minimumDelay`` are reported as problems in `reader`.
    public static func fromEnvironment(_ reader: inout ConfigReader) -> CatalogConfiguration {
        let defaults = CatalogConfiguration()
        func read(_ name: String, default value: Duration) -> Duration {
            let duration = reader.duration(name, default: value)
            guard duration >= minimumDelay else {
                reader.report(name, "must be at least \(minimumDelay)")
                return value
            }
            return duration
        }
        return CatalogConfiguration(
            refreshInterval: read("CATALOG_REFRESH_INTERVAL", default: defaults.refreshInterval),
            initialRetryDelay: read("CATALOG_RETRY_INITIAL_DELAY", default: defaults.initialRetryDelay),
            maximumRetryDelay: read("CATALOG_RETRY_MAX_DELAY", default: defaults.maximumRetryDelay))
    }

    /// The refresher's schedule: ``refreshInterval`` after a full success,
    /// otherwise an exponential backoff from ``initialRetryDelay``, capped by
    /// ``maximumRetryDelay`` and ``refreshInterval``.
    public var schedule: CatalogRefreshSchedule {
        CatalogRefreshSchedule(interval: refreshInterval, initialRetryDelay: initialRetryDelay, maximumRetryDelay: maximumRetryDelay)
    }

    /// The wait after a refresh (``schedule``).
    /// - Parameter consecutiveFailures: refreshes in a row with a failing source (0 after a success).
    public func delay(afterConsecutiveFailures consecutiveFailures: Int) -> Duration {
        schedule.delay(afterConsecutiveFailures: consecutiveFailures)
    }
}
