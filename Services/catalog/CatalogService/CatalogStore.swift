import Models
import Synchronization
import Telemetry

/// Holds the catalog in memory and refreshes it from its sources.
///
/// Reads (``snapshot``) take a lock only long enough to copy a reference.
/// Refreshes run one at a time: a trigger while one is in flight joins it
/// instead of starting another, so a burst of triggers costs one fetch per
/// source. Each source's last good items are kept: when a source fails, its
/// previous items are served next to the fresh items of the others.
public final class CatalogStore: Sendable {
    /// Most items accepted from one source per fetch; more is treated as a
    /// failed fetch (a provider bug or a runaway paging loop), keeping the
    /// last good items, rather than serving a truncated list.
    public static let maximumItemsPerSource = 10_000
    /// Longest error text kept in an outcome or log line.
    static let maximumReasonLength = 300

    /// The sources in list order.
    public let sources: [any CatalogSource]
    let clock: CatalogClock
    let logger: Logger
    let metrics: CatalogMetrics

    /// A source's last good fetch.
    struct SourceState: Sendable {
        var items: [CatalogItem]
        var fetchedAt: Double
    }

    struct RefreshState: Sendable {
        /// Last good fetch per source, by index into ``sources``; nil until its first success.
        var sources: [SourceState?]
        var inFlight: Task<CatalogRefreshOutcome, Never>?
        var fetchesStarted = 0
    }

    private let current = Mutex<CatalogSnapshot?>(nil)
    private let refreshState: Mutex<RefreshState>

    /// - Parameters:
    ///   - sources: fetched concurrently, listed in this order.
    ///   - clock: time source for ages.
    ///   - logger: refresh results and skipped items are logged here.
    ///   - metrics: where the `catalog_*` series are registered.
    public init(sources: [any CatalogSource], clock: CatalogClock = .continuous, logger: Logger, metrics: MetricsRegistry) {
        self.sources = sources
        self.clock = clock
        self.logger = logger
        let catalogMetrics = CatalogMetrics(registry: metrics)
        self.metrics = catalogMetrics
        refreshState = Mutex(RefreshState(sources: Array(repeating: nil, count: sources.count)))
        // Weak: the registry may outlive the store (tests build many stores).
        metrics.onCollect { [weak self] in self?.updateAgeGauge() }
    }

    /// Sets `catalog_age_seconds` just before a scrape.
    private func updateAgeGauge() {
        if let snapshot {
            metrics.age.set(max(0, clock.now() - snapshot.fetchedAt))
        }
    }

    /// The catalog being served, or nil when no source ever loaded.
    public var snapshot: CatalogSnapshot? { current.withLock { $0 } }

    /// Whether a catalog is being served.
    public var isLoaded: Bool { snapshot != nil }

    /// Whether a refresh is running now.
    public var isRefreshing: Bool { refreshState.withLock { $0.inFlight != nil } }

    /// How many refreshes have started fetching since creation (joined
    /// triggers do not count); lets tests and operators see coalescing.
    public var refreshesStarted: Int { refreshState.withLock { $0.fetchesStarted } }

    /// Current ``CatalogClock`` time.
    public func now() -> Double { clock.now() }

    /// Refreshes now and returns what happened; joins a refresh already running.
    public func refresh() async -> CatalogRefreshOutcome {
        await triggerRefresh().value
    }

    /// Starts a refresh, or returns the one in flight, without waiting for it.
    ///
    /// Everything that asks while a refresh runs gets that same task, so
    /// concurrent triggers coalesce into one fetch per source.
    @discardableResult
    public func triggerRefresh() -> Task<CatalogRefreshOutcome, Never> {
        refreshState.withLock { state in
            if let running = state.inFlight { return running }
            state.fetchesStarted += 1
            // Stored before the lock is released, and the task clears it under
            // the same lock when done, so no trigger can see a finished task.
            let task = Task { await self.performRefresh() }
            state.inFlight = task
            return task
        }
    }

    /// Cancels the refresh in flight, if any (service shutdown); sources see
    /// task cancellation and the catalog keeps what it had.
    public func cancelRefresh() {
        refreshState.withLock { $0.inFlight }?.cancel()
    }

    // MARK: - Refresh

    private func performRefresh() async -> CatalogRefreshOutcome {
        let previous = refreshState.withLock { $0.sources }
        let results = await fetchAll()
        var next = previous
        var refreshed: [Provider] = []
        var failures: [CatalogRefreshOutcome.Failure] = []
        for (index, result) in results.enumerated() {
            let provider = sources[index].provider
            switch result {
            case .success(let fetch):
                next[index] = fetch
                refreshed.append(provider)
            case .failure(let error):
                let reason = Self.describe(error)
                failures.append(.init(provider: provider, reason: reason))
                // Cancellation is shutdown, not a provider fault: no warning for it.
                logger.log(
                    error is CancellationError ? .info : .warning,
                    previous[index] == nil
                        ? "catalog source failed; nothing loaded from it yet" : "catalog source failed; serving its last good items",
                    metadata: ["provider": provider.rawValue, "error": reason])
            }
        }

        var published: CatalogSnapshot?
        if !refreshed.isEmpty {
            do {
                published = try render(next)
            } catch {
                // Cannot happen with these Codable types; if it ever does, the
                // previous snapshot and source states stay as they were.
                let reason = Self.describe(error)
                logger.error("cannot encode the catalog; keeping the previous one", metadata: ["error": reason])
                failures = sources.map { .init(provider: $0.provider, reason: "encoding failed: \(reason)") }
                refreshed = []
                next = previous
            }
        }
        if let published {
            current.withLock { $0 = published }
            metrics.items.set(Double(published.products.count))
        }
        let served = snapshot
        refreshState.withLock { state in
            state.sources = next
            state.inFlight = nil
        }
        (failures.isEmpty ? metrics.refreshOK : metrics.refreshError).increment()
        let outcome = CatalogRefreshOutcome(
            refreshed: refreshed, failures: failures, isLoaded: served != nil,
            itemCount: served?.products.count ?? 0)
        if failures.isEmpty {
            logger.debug("catalog refreshed", metadata: ["catalog.items": String(outcome.itemCount)])
        }
        return outcome
    }

    /// Fetches every source concurrently; results in source order.
    private func fetchAll() async -> [Result<SourceState, any Error>] {
        await withTaskGroup(of: (Int, Result<SourceState, any Error>).self) { group in
            for (index, source) in sources.enumerated() {
                group.addTask { [clock] in
                    do {
                        let items = try await source.fetchCatalog()
                        guard items.count <= Self.maximumItemsPerSource else {
                            throw CatalogSourceError.tooManyItems(count: items.count, limit: Self.maximumItemsPerSource)
                        }
                        return (index, .success(SourceState(items: items, fetchedAt: clock.now())))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var results = [Result<SourceState, any Error>?](repeating: nil, count: sources.count)
            for await (index, result) in group { results[index] = result }
            return results.map { $0 ?? .failure(CancellationError()) }
        }
    }

    /// Builds the snapshot from every source that has loaded, in source order.
    private func render(_ states: [SourceState?]) throws -> CatalogSnapshot {
        var items: [CatalogItem] = []
        var oldest = Double.infinity
        for (index, state) in states.enumerated() {
            guard let state else { continue }
            let provider = sources[index].provider
            // A source may only speak for its own provider: ids are prefixed by
            // provider, so a stray item would claim another provider's namespace.
            let own = state.items.filter { $0.provider == provider }
            if own.count != state.items.count {
                logger.warning(
                    "catalog source returned items of another provider; skipped them",
                    metadata: ["provider": provider.rawValue, "skipped": String(state.items.count - own.count)])
            }
            items += own
            oldest = min(oldest, state.fetchedAt)
        }
        var skipped: [CatalogRenderer.Skipped] = []
        let products = CatalogRenderer.resources(from: items, skipped: &skipped)
        for entry in skipped.prefix(20) {
            logger.warning(
                "catalog item skipped",
                metadata: [
                    "provider": entry.provider.rawValue, "product.id": String(entry.productID.prefix(64)),
                    "variant.id": String(entry.variantID.prefix(64)), "reason": entry.reason,
                ])
        }
        if skipped.count > 20 {
            logger.warning("more catalog items skipped", metadata: ["count": String(skipped.count - 20)])
        }
        return try CatalogRenderer.snapshot(of: products, fetchedAt: oldest.isFinite ? oldest : clock.now())
    }

    /// One bounded line describing `error`.
    static func describe(_ error: any Error) -> String {
        if error is CancellationError { return "cancelled" }
        let firstLine = String(describing: error).split(whereSeparator: \.isNewline).first.map(String.init) ?? "\(type(of: error))"
        return firstLine.count > maximumReasonLength ? String(firstLine.prefix(maximumReasonLength)) + "…" : firstLine
    }
}

/// Problems the store finds with what a source returned.
public enum CatalogSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The source returned more than ``CatalogStore/maximumItemsPerSource`` items.
    case tooManyItems(count: Int, limit: Int)

    public var description: String {
        switch self {
        case .tooManyItems(let count, let limit): "source returned \(count) items, more than the limit of \(limit)"
        }
    }
}
