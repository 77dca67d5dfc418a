import BillingModel
import Synchronization
import Telemetry

/// The one catalog cache concept: each source's last good items in memory,
/// refreshed from its ``CatalogSource``s; the catalog service renders it into
/// its product list, the checkout service looks variants up in it.
///
/// Reads (``contents``, ``lookup(_:)``) take a lock only long enough to copy a
/// value. Refreshes run one at a time: a trigger while one is in flight joins
/// it instead of starting another, so a burst of triggers costs one fetch per
/// source. Sources are fetched concurrently; when one fails, its previous
/// items are kept next to the fresh items of the others.
///
/// What a service does with a refresh stays with the service, through two
/// hooks: `willServe` (before fresh items are kept; throwing keeps the
/// previous contents, e.g. when they cannot be rendered) and `didRefresh`
/// (after every refresh, e.g. for metrics).
public final class CatalogCache: CatalogEntryIDSource {
    /// The default for ``maximumItemsPerSource``: more is treated as a failed
    /// fetch (a provider bug or a runaway paging loop), keeping the last good
    /// items, rather than serving a truncated list.
    public static let defaultMaximumItemsPerSource = 10_000
    /// Longest error text kept in an outcome or log line.
    static let maximumReasonLength = 300

    /// Called, when at least one source brought fresh items, with the
    /// contents about to be kept. Throwing keeps the previous contents and
    /// counts every source as failed (the hook logs why).
    public typealias WillServe = @Sendable (CatalogContents) throws -> Void
    /// Called after every refresh with its outcome and the contents kept.
    public typealias DidRefresh = @Sendable (CatalogRefreshOutcome, CatalogContents) -> Void

    /// The sources in list order, one per provider.
    public let sources: [any CatalogSource]
    /// Most items accepted from one source per fetch; nil for no limit.
    public let maximumItemsPerSource: Int?
    let clock: CatalogClock
    let logger: Logger
    let willServe: WillServe?
    let didRefresh: DidRefresh?

    struct State: Sendable {
        var contents: CatalogContents
        var inFlight: Task<CatalogRefreshOutcome, Never>?
        var fetchesStarted = 0
    }

    private let state: Mutex<State>

    /// - Parameters:
    ///   - sources: fetched concurrently, kept in this order; one per provider
    ///     (lookups use the first source of a provider).
    ///   - clock: time source for the fetch times.
    ///   - logger: source failures and dropped items are logged here.
    ///   - maximumItemsPerSource: see ``maximumItemsPerSource``.
    ///   - willServe: see ``WillServe``.
    ///   - didRefresh: see ``DidRefresh``.
    public init(
        sources: [any CatalogSource], clock: CatalogClock = .continuous, logger: Logger,
        maximumItemsPerSource: Int? = CatalogCache.defaultMaximumItemsPerSource,
        willServe: WillServe? = nil, didRefresh: DidRefresh? = nil
    ) {
        self.sources = sources
        self.clock = clock
        self.logger = logger
        self.maximumItemsPerSource = maximumItemsPerSource
        self.willServe = willServe
        self.didRefresh = didRefresh
        state = Mutex(State(contents: CatalogContents(providers: sources.map(\.provider))))
    }

    /// Each source's last good items.
    public var contents: CatalogContents { state.withLock { $0.contents } }

    /// Whether at least one source has loaded.
    public var isLoaded: Bool { contents.isLoaded }

    /// Whether every source has loaded at least once (true with no sources).
    public var allSourcesLoaded: Bool { contents.allSourcesLoaded }

    /// The kept item for `variant` (see ``CatalogContents/lookup(_:)``).
    public func lookup(_ variant: CatalogID) -> CatalogLookup { contents.lookup(variant) }

    /// Distinct variants kept for `provider` (0 before its first load).
    public func variantCount(_ provider: Provider) -> Int { contents.variantCount(provider) }

    /// The id the catalog lists a purchase under now (see ``CatalogContents/catalogEntryID(provider:productID:variantID:)``).
    public func catalogEntryID(provider: Provider, productID: String, variantID: String) -> CatalogID? {
        contents.catalogEntryID(provider: provider, productID: productID, variantID: variantID)
    }

    /// Whether a refresh is running now.
    public var isRefreshing: Bool { state.withLock { $0.inFlight != nil } }

    /// How many refreshes have started fetching since creation (joined
    /// triggers do not count); lets tests and operators see coalescing.
    public var refreshesStarted: Int { state.withLock { $0.fetchesStarted } }

    /// Current ``CatalogClock`` time.
    public func now() -> Double { clock.now() }

    /// Refreshes from every source, or joins the refresh already running.
    @discardableResult
    public func refresh() async -> CatalogRefreshOutcome {
        await triggerRefresh().value
    }

    /// Starts a refresh unless one is in flight; returns the task to await.
    /// Concurrent calls coalesce into one fetch per source.
    @discardableResult
    public func triggerRefresh() -> Task<CatalogRefreshOutcome, Never> {
        state.withLock { state in
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
    /// task cancellation and the cache keeps what it had.
    public func cancelRefresh() {
        state.withLock { $0.inFlight }?.cancel()
    }

    // MARK: - Refresh

    private func performRefresh() async -> CatalogRefreshOutcome {
        let previous = contents
        let results = await fetchAll()
        var next = previous
        var refreshed: [Provider] = []
        var failures: [CatalogRefreshOutcome.Failure] = []
        for (index, result) in results.enumerated() {
            let provider = sources[index].provider
            switch result {
            case .success(let entry):
                next.entries[index] = entry
                refreshed.append(provider)
            case .failure(let error):
                let reason = Self.describe(error)
                failures.append(.init(provider: provider, reason: reason))
                // Cancellation is shutdown, not a provider fault: no warning for it.
                logger.log(
                    error is CancellationError ? .info : .warning,
                    previous.entries[index] == nil
                        ? "catalog source failed; nothing loaded from it yet" : "catalog source failed; serving its last good items",
                    metadata: ["provider": provider.rawValue, "error": reason])
            }
        }

        if !refreshed.isEmpty, let willServe {
            do {
                try willServe(next)
            } catch {
                // The previous contents stay as they were.
                let reason = Self.describe(error)
                failures = sources.map { .init(provider: $0.provider, reason: reason) }
                refreshed = []
                next = previous
            }
        }
        state.withLock { state in
            state.contents = next
            state.inFlight = nil
        }
        let outcome = CatalogRefreshOutcome(refreshed: refreshed, failures: failures, isLoaded: next.isLoaded, itemCount: next.itemCount)
        didRefresh?(outcome, next)
        if failures.isEmpty {
            logger.debug("catalog refreshed", metadata: ["catalog.items": String(outcome.itemCount)])
        }
        return outcome
    }

    /// Fetches every source concurrently; results in source order.
    private func fetchAll() async -> [Result<CatalogContents.Entry, any Error>] {
        await withTaskGroup(of: (Int, Result<CatalogContents.Entry, any Error>).self) { group in
            for (index, source) in sources.enumerated() {
                group.addTask { [clock, logger, maximumItemsPerSource] in
                    do {
                        let items = try await source.fetchCatalog()
                        if let limit = maximumItemsPerSource, items.count > limit {
                            throw CatalogSourceError.tooManyItems(count: items.count, limit: limit)
                        }
                        // A source may only speak for its own provider: ids are prefixed by
                        // provider, so a stray item would claim another provider's namespace.
                        let own = items.filter { $0.provider == source.provider }
                        if own.count != items.count {
                            logger.warning(
                                "catalog source returned items of another provider; skipped them",
                                metadata: ["provider": source.provider.rawValue, "skipped": String(items.count - own.count)])
                        }
                        return (index, .success(CatalogContents.Entry(provider: source.provider, items: own, fetchedAt: clock.now())))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var results = [Result<CatalogContents.Entry, any Error>?](repeating: nil, count: sources.count)
            for await (index, result) in group { results[index] = result }
            return results.map { $0 ?? .failure(CancellationError()) }
        }
    }

    /// One bounded line describing `error`.
    static func describe(_ error: any Error) -> String {
        if error is CancellationError { return "cancelled" }
        let firstLine = String(describing: error).split(whereSeparator: \.isNewline).first.map(String.init) ?? "\(type(of: error))"
        return firstLine.count > maximumReasonLength ? String(firstLine.prefix(maximumReasonLength)) + "…" : firstLine
    }
}

/// Problems the cache finds with what a source returned.
public enum CatalogSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The source returned more than ``CatalogCache/maximumItemsPerSource`` items.
    case tooManyItems(count: Int, limit: Int)

    public var description: String {
        switch self {
        case .tooManyItems(let count, let limit): "source returned \(count) items, more than the limit of \(limit)"
        }
    }
}
