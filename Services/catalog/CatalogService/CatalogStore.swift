import Catalog
import BillingModel
import Synchronization
import Telemetry

/// The catalog service's side of the shared ``CatalogCache``: each time the
/// cache takes fresh items, they are rendered into a ``CatalogSnapshot``
/// (every response body encoded once) that the routes serve.
///
/// Reads (``snapshot``) take a lock only long enough to copy a reference.
/// The `catalog_*` series are kept here: `catalog_items` (products served),
/// `catalog_refresh_total{result}` and `catalog_age_seconds`.
public final class CatalogStore: Sendable {
    /// The shared cache this store renders (refreshes, coalescing, last good items per source).
    public let cache: CatalogCache
    let clock: CatalogClock
    let metrics: CatalogMetrics
    private let current: SnapshotSlot

    /// The snapshot being served, shared with the cache's `willServe` hook.
    final class SnapshotSlot: Sendable {
        private let value = Mutex<CatalogSnapshot?>(nil)
        var snapshot: CatalogSnapshot? {
            get { value.withLock { $0 } }
            set { value.withLock { $0 = newValue } }
        }
    }

    /// - Parameters:
    ///   - sources: fetched concurrently, listed in this order.
    ///   - clock: time source for ages.
    ///   - logger: refresh results and skipped items are logged here.
    ///   - metrics: where the `catalog_*` series are registered.
    public init(sources: [any CatalogSource], clock: CatalogClock = .continuous, logger: Logger, metrics: MetricsRegistry) {
        let catalogMetrics = CatalogMetrics(registry: metrics)
        let current = SnapshotSlot()
        self.clock = clock
        self.metrics = catalogMetrics
        self.current = current
        cache = CatalogCache(
            sources: sources, clock: clock, logger: logger,
            willServe: { contents in
                let snapshot = try Self.render(contents, clock: clock, logger: logger)
                current.snapshot = snapshot
                catalogMetrics.items.set(Double(snapshot.products.count))
            },
            didRefresh: { outcome, _ in
                (outcome.ok ? catalogMetrics.refreshOK : catalogMetrics.refreshError).increment()
            })
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
    public var snapshot: CatalogSnapshot? { current.snapshot }

    /// Whether a catalog is being served.
    public var isLoaded: Bool { snapshot != nil }

    /// Current ``CatalogClock`` time.
    public func now() -> Double { clock.now() }

    /// Why fresh items could not be served (not expected with these Codable types).
    struct EncodingFailed: Error, CustomStringConvertible {
        let reason: String
        var description: String { "encoding failed: \(reason)" }
    }

    /// Builds the snapshot from every source that has loaded, in source order.
    /// - Throws: ``EncodingFailed``; the cache then keeps its previous contents and
    ///   this store its previous snapshot.
    static func render(_ contents: CatalogContents, clock: CatalogClock, logger: Logger) throws(EncodingFailed) -> CatalogSnapshot {
        var items: [CatalogItem] = []
        var oldest = Double.infinity
        for entry in contents.loaded {
            items += entry.items
            oldest = min(oldest, entry.fetchedAt)
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
        do {
            return try CatalogRenderer.snapshot(of: products, fetchedAt: oldest.isFinite ? oldest : clock.now())
        } catch {
            let failure = EncodingFailed(reason: String(describing: error))
            logger.error("cannot encode the catalog; keeping the previous one", metadata: ["error": failure.reason])
            throw failure
        }
    }
}
