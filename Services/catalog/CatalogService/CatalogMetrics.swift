import Telemetry

/// The catalog's Prometheus series.
struct CatalogMetrics: Sendable {
    /// `catalog_refresh_total{result="ok"}`: refreshes in which every source succeeded.
    let refreshOK: Counter
    /// `catalog_refresh_total{result="error"}`: refreshes in which at least one source failed.
    let refreshError: Counter
    /// `catalog_items`: products currently served.
    let items: Gauge
    /// `catalog_age_seconds`: age of the served data; NaN until a first load.
    let age: Gauge

    init(registry: MetricsRegistry) {
        let refreshHelp = "Catalog refreshes by result (error when any source failed)."
        refreshOK = registry.counter("catalog_refresh_total", help: refreshHelp, labels: ["result": "ok"])
        refreshError = registry.counter("catalog_refresh_total", help: refreshHelp, labels: ["result": "error"])
        items = registry.gauge("catalog_items", help: "Products currently served by the catalog.")
        age = registry.gauge("catalog_age_seconds", help: "Seconds since the served catalog data was fetched (NaN before the first load).")
        age.set(.nan)
    }
}
